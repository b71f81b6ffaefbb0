/**
 * The baseline: a bare Fastify JSON endpoint, the ceiling Parley's endpoints are compared
 * with. POST parses its form body, so POST rows compare with a request of the same shape.
 */
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => {
  done(null, Object.fromEntries(new URLSearchParams(body as string)));
});
const reply = { result: "success", msg: "", id: 42 };
app.get("/bare", async () => reply);
app.post("/bare", async (req) => ({ ...reply, fields: Object.keys(req.body as object).length }));
const port = Number(process.env.PORT ?? 0);
app.listen({ port, host: "127.0.0.1" }).then((address) => {
  process.stdout.write(`listening ${address}\n`);
});
