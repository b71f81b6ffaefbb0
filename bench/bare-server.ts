/**
 * The baseline: a bare Fastify JSON endpoint, the ceiling Parley's endpoints are compared
 * with. POST parses its form body, so POST rows compare with a request of the same shape.
 * For the fan-out rows, GET /bare-poll waits until POST /bare-release answers every waiting
 * poll with the same JSON body: how long a bare server takes to answer that many polls.
 */
import Fastify, { type FastifyReply } from "fastify";

const app = Fastify({ logger: false });
app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => {
  done(null, Object.fromEntries(new URLSearchParams(body as string)));
});
const reply = { result: "success", msg: "", id: 42 };
app.get("/bare", async () => reply);
app.post("/bare", async (req) => ({ ...reply, fields: Object.keys(req.body as object).length }));
let waiting: FastifyReply[] = [];
/** Polls whose client is still connected (a closed pool's polls are forgotten). */
const live = () => (waiting = waiting.filter((poll) => !poll.raw.destroyed));
app.get("/bare-poll", (_req, reply) => {
  waiting.push(reply);
});
app.get("/bare-waiting", async () => ({ ...reply, waiting: live().length }));
app.post("/bare-release", async (req) => {
  const body = (req.body as { body: string }).body;
  const answered = live();
  waiting = [];
  for (const poll of answered) poll.type("application/json").send(body);
  return { ...reply, answered: answered.length };
});
const port = Number(process.env.PORT ?? 0);
app.listen({ port, host: "127.0.0.1" }).then((address) => {
  process.stdout.write(`listening ${address}\n`);
});
