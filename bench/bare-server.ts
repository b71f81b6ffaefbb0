/** The baseline: a bare Fastify JSON endpoint, the ceiling Parley's endpoints are compared with. */
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.get("/bare", async () => ({ result: "success", msg: "", id: 42 }));
const port = Number(process.env.PORT ?? 0);
app.listen({ port, host: "127.0.0.1" }).then((address) => {
  process.stdout.write(`listening ${address}\n`);
});
