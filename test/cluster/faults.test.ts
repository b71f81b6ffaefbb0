/**
 * Faults of a cluster: PostgreSQL and Redis restarting under two running nodes, a node
 * killed under load, a node stopped with SIGTERM. The nodes run on a PostgreSQL and a Redis
 * of this file's own (test/support/private-services.ts): the shared instances other test
 * files use are never stopped. Runs with TEST_DATABASE_URL and TEST_REDIS_URL (like the
 * other cluster tests) when PostgreSQL's binaries and redis-server are installed.
 */
import http from "node:http";
import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { clusterConfigured, startCluster, stopProcess, type Cluster } from "../support/cluster.js";
import { privateServicesAvailable, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from "../support/private-services.js";

vi.setConfig({ testTimeout: 60_000 });

interface Account {
  email: string;
  api_key: string;
  user_id: number;
}

type Body = Record<string, any>;

interface Answer {
  status: number;
  body: Body;
  ms: number;
  /** When the answer arrived (Date.now()). */
  at: number;
}

let postgres: PrivatePostgres;
let redis: PrivateRedis;
let cluster: Cluster;
let owner: Account;
let member: Account;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function authHeader(who: Account): string {
  return `Basic ${Buffer.from(`${who.email}:${who.api_key}`).toString("base64")}`;
}

/** One request on a connection of its own, answered within `timeoutMs` or failed. */
function call(base: string, who: Account, method: string, path: string, params: Record<string, unknown> = {}, timeoutMs = 15_000): Promise<Answer> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  const inQuery = method === "GET" || method === "DELETE";
  const url = new URL(`${base}/api/v1${path}${inQuery ? `?${form}` : ""}`);
  const body = inQuery ? undefined : form.toString();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent: false,
        timeout: timeoutMs,
        headers: { authorization: authHeader(who), ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) }) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Body, ms: Date.now() - started, at: Date.now() });
          } catch {
            reject(new Error(`${method} ${path}: no JSON (${res.statusCode}): ${text.slice(0, 200)}`));
          }
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

async function ok(base: string, who: Account, method: string, path: string, params: Record<string, unknown> = {}): Promise<Body> {
  const res = await call(base, who, method, path, params);
  expect(res.body.result, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe("success");
  return res.body;
}

/** The JSON error envelope with HTTP 503, never Fastify's own body or a 500. */
function expectUnavailable(res: Answer, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(503);
  expect(res.body).toMatchObject({ result: "error", code: expect.any(String), msg: expect.any(String) });
}

function sendDirect(base: string, from: Account, to: Account, content: string): Promise<Answer> {
  return call(base, from, "POST", "/messages", { type: "direct", to: [to.user_id], content });
}

/** Retries `attempt` until it succeeds (bounded): the service came back, the node recovered. */
async function eventually<T>(attempt: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const got = await attempt();
      if (got !== undefined) return got;
    } catch (err) {
      last = err;
    }
    await sleep(200);
  }
  throw new Error(`${what} did not happen within ${ms} ms (${String(last)})`);
}

/**
 * Reads a queue on `base` without waiting until `until` holds, checking event ids run on
 * without a gap from `lastEventId`; returns the message ids seen.
 */
async function drain(base: string, who: Account, queueId: string, until: (ids: number[]) => boolean, lastEventId = -1): Promise<{ ids: number[]; lastEventId: number }> {
  const ids: number[] = [];
  let last = lastEventId;
  const deadline = Date.now() + 15_000;
  while (!until(ids) && Date.now() < deadline) {
    const body = await ok(base, who, "GET", "/events", { queue_id: queueId, last_event_id: String(last), dont_block: "true" });
    for (const event of body.events as Body[]) {
      expect(event.id, "event ids run on without a gap").toBe(last + 1);
      last = event.id as number;
      if (event.type === "message") ids.push(event.message.id as number);
    }
    if ((body.events as Body[]).length === 0) await sleep(50);
  }
  return { ids, lastEventId: last };
}

/**
 * A POST whose body is sent in two halves: the request is in flight (its headers read,
 * its body not yet) until finish() sends the rest and reads the answer.
 */
async function slowPost(port: number, who: Account, path: string, params: Record<string, string>): Promise<{ finish(): Promise<Answer> }> {
  const body = new URLSearchParams(params).toString();
  const socket = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (c: string) => (text += c));
  const ended = new Promise<void>((resolve, reject) => socket.once("end", resolve).once("error", reject));
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /api/v1${path} HTTP/1.1\r\nHost: chat.test\r\nAuthorization: ${authHeader(who)}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    finish: async () => {
      const started = Date.now();
      socket.write(body.slice(half));
      await ended;
      const [head, payload] = text.split("\r\n\r\n", 2);
      return { status: Number(head.split(" ")[1]), body: JSON.parse(payload) as Body, ms: Date.now() - started, at: Date.now() };
    },
  };
}

const available = clusterConfigured && privateServicesAvailable();

describe.skipIf(!available)("faults", () => {
  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    cluster = await startCluster(2, { PARLEY_LONG_POLL_SECONDS: "50" }, { databaseUrl: postgres.url, redisUrl: redis.url });
    owner = cluster.owner;
    const created = await runCli(["create-user", "--email", "member@chat.test", "--full-name", "Member", "--json"], cluster.env);
    expect(created.code, created.stderr).toBe(0);
    member = JSON.parse(created.stdout) as Account;
  }, 120_000);

  afterAll(async () => {
    if (process.env.FAULTS_DEBUG) for (const n of cluster?.nodes ?? []) console.log(`--- node ${n.port} (exit ${n.process.exitCode})\n${n.log().split("\n").filter((l) => !l.includes('"msg":"request"')).join("\n").slice(-6000)}`);
    await cluster?.stop();
    await Promise.all([postgres?.destroy(), redis?.destroy()]);
  });

  it.each(["fast", "immediate"] as const)("answers 503 while PostgreSQL is down (%s stop), recovers when it is back, and loses nothing", async (mode) => {
    const [a, b] = cluster.nodes;
    const qa = await ok(a.url, owner, "POST", "/register", { event_types: ["message"] });
    const qb = await ok(b.url, owner, "POST", "/register", { event_types: ["message"] });
    const before = await ok(a.url, member, "POST", "/messages", { type: "direct", to: [owner.user_id], content: "before the restart" });

    // Sends go on while PostgreSQL stops: each gets a 200 or a 503, never a 500.
    const acked: number[] = [];
    const statuses = new Map<number, number>();
    let sending = true;
    const traffic = (async () => {
      for (let n = 0; n < 300 && sending; n++) {
        const res = await sendDirect(cluster.nodes[n % 2].url, member, owner, `during the stop ${n}`);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) acked.push(res.body.id as number);
        else if (res.status !== 503) throw new Error(`a send during the stop: ${res.status} ${JSON.stringify(res.body)}`);
      }
    })();
    await sleep(300);
    await postgres.stop(mode);
    for (const node of [a, b]) {
      const sent = await sendDirect(node.url, member, owner, "while down");
      expectUnavailable(sent, "send");
      expect(sent.ms, "answered at once, not after a hang").toBeLessThan(8000);
      const read = await call(node.url, owner, "GET", "/messages", { anchor: "newest", num_before: "5", num_after: "0" });
      expectUnavailable(read, "read");
      const registered = await call(node.url, owner, "POST", "/register", { event_types: ["message"] });
      expectUnavailable(registered, "register");
    }
    sending = false;
    await traffic;
    expect(statuses.get(503), "some sends met the stop").toBeGreaterThan(0);

    await postgres.start();
    // No restart of Parley: each node's pool connects again.
    const after: number[] = [];
    for (const node of [a, b]) {
      after.push(await eventually(async () => {
        const res = await sendDirect(node.url, member, owner, `after the restart, through ${node.port}`);
        return res.status === 200 ? (res.body.id as number) : undefined;
      }, "a send after PostgreSQL came back"));
    }
    // Every acknowledged send is in the database.
    const db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    try {
      const found = await db.query("SELECT id FROM messages WHERE id = ANY($1::int[])", [acked]);
      expect(found.rowCount, "acknowledged messages in the database").toBe(acked.length);
    } finally {
      await db.end();
    }
    // The queues registered before the restart go on, with every message and no gap.
    const expected = [before.id as number, ...acked, ...after];
    for (const [q, node] of [[qa, a], [qb, b]] as const) {
      const { ids } = await drain(node.url, owner, q.queue_id as string, (ids) => expected.every((id) => ids.includes(id)), q.last_event_id as number);
      expect(expected.filter((id) => !ids.includes(id)), "messages missing from a queue").toEqual([]);
    }
  });

  it("answers 503 while Redis is down and delivers events published meanwhile", async () => {
    const [a, b] = cluster.nodes;
    const qa = await ok(a.url, owner, "POST", "/register", { event_types: ["message"] });
    const qb = await ok(b.url, owner, "POST", "/register", { event_types: ["message"] });
    // Due while Redis is down: the node that delivers it publishes the event then.
    const content = `scheduled ${Date.now()}`;
    await ok(a.url, member, "POST", "/scheduled_messages", { type: "direct", to: [owner.user_id], content, scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 2) });

    await redis.stop();
    for (const node of [a, b]) {
      const me = await call(node.url, owner, "GET", "/users/me");
      expectUnavailable(me, "a rate-limited request");
      expect(me.ms).toBeLessThan(8000);
    }
    // A poll for a queue on the other node needs Redis to find that node.
    await sleep(2100);
    const forwarded = await call(a.url, owner, "GET", "/events", { queue_id: qb.queue_id, last_event_id: String(qb.last_event_id), dont_block: "true" });
    expectUnavailable(forwarded, "a poll for another node's queue");
    const db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    try {
      await eventually(async () => ((await db.query("SELECT id FROM messages WHERE content = $1", [content])).rowCount === 1 ? true : undefined), "the scheduled delivery");
    } finally {
      await db.end();
    }

    await redis.start();
    // Both queues get the message: the node that delivered it sent its event to Redis once back.
    for (const [q, node, other] of [[qa, a, b], [qb, b, a]] as const) {
      // Polled through the other node (the queue's node must be found again in an empty Redis).
      const wrong: Answer[] = [];
      await eventually(async () => {
        const res = await call(other.url, owner, "GET", "/events", { queue_id: q.queue_id, last_event_id: String(q.last_event_id), dont_block: "true" });
        if (res.status !== 200 && res.status !== 503) wrong.push(res);
        return res.status === 200 ? res : undefined;
      }, "a forwarded poll after Redis came back");
      expect(wrong, "no answer but a success or a 503 (the queue is still there)").toEqual([]);
      const { ids } = await drain(node.url, owner, q.queue_id as string, (ids) => ids.length >= 1, q.last_event_id as number);
      expect(ids).toHaveLength(1);
    }
  });

  it("loses no acknowledged write when a node is killed under load; its clients learn their queue is gone", async () => {
    const [a] = cluster.nodes;
    const victim = await cluster.startNode();
    // Queues of the owner on the survivor and on the node about to die, and a poll waiting
    // on the latter through the survivor.
    const onSurvivor = await ok(a.url, owner, "POST", "/register", { event_types: ["message"] });
    const onVictim = await ok(victim.url, owner, "POST", "/register", { event_types: ["message"] });
    const quiet = await ok(victim.url, member, "POST", "/register", { event_types: ["realm_emoji"] });
    const waiting = call(a.url, member, "GET", "/events", { queue_id: quiet.queue_id, last_event_id: String(quiet.last_event_id) });

    const acked: number[] = [];
    const unexpected: string[] = [];
    let killed = false;
    const sender = async (node: typeof a, name: string) => {
      for (let n = 0; n < 400; n++) {
        if (killed && node !== victim && n % 10 === 0) return; // the survivor's senders stop soon after the kill
        let res: Answer;
        try {
          res = await sendDirect(node.url, member, owner, `load ${name} ${n}`);
        } catch (err) {
          if (node === victim && killed) return; // the node is gone: no answer, no acknowledgement
          throw err;
        }
        if (res.status === 200) acked.push(res.body.id as number);
        else unexpected.push(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    };
    const senders = [sender(victim, "v1"), sender(victim, "v2"), sender(victim, "v3"), sender(a, "a1"), sender(a, "a2")];
    await eventually(async () => (acked.length >= 60 ? true : undefined), "sending under load", 30_000);
    killed = true;
    await stopProcess(victim.process, "SIGKILL");
    await Promise.all(senders);
    expect(unexpected).toEqual([]);

    // Every acknowledged message is in the database.
    const db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    try {
      const found = await db.query("SELECT id FROM messages WHERE id = ANY($1::int[])", [acked]);
      expect(found.rowCount, "acknowledged messages in the database").toBe(acked.length);
    } finally {
      await db.end();
    }
    // The poll waiting through the survivor learns at once that its queue is gone.
    const answer = await waiting;
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body).toMatchObject({ result: "error", code: "BAD_EVENT_QUEUE_ID" });
    // So does the next poll of the dead node's queue, through the survivor.
    const next = await call(a.url, owner, "GET", "/events", { queue_id: onVictim.queue_id, last_event_id: String(onVictim.last_event_id) });
    expect(next.body, JSON.stringify(next.body)).toMatchObject({ result: "error", code: "BAD_EVENT_QUEUE_ID" });
    // The survivor's queue has every acknowledged message, whichever node sent it.
    const { ids } = await drain(a.url, owner, onSurvivor.queue_id as string, (ids) => acked.every((id) => ids.includes(id)), onSurvivor.last_event_id as number);
    expect(acked.filter((id) => !ids.includes(id)), "acknowledged messages missing from a surviving queue").toEqual([]);
  });

  it("on SIGTERM answers waiting polls, refuses new requests with a 503 and finishes writes in flight", async () => {
    const [a, b] = cluster.nodes;
    const onA = await ok(a.url, owner, "POST", "/register", { event_types: ["message"] });
    const quietOnA = await ok(a.url, member, "POST", "/register", { event_types: ["realm_emoji"] });
    const onB = await ok(b.url, owner, "POST", "/register", { event_types: ["message"] });
    // Waiting on the closing node: a poll of its own queue, and one forwarded to the other node.
    const local = call(b.url, owner, "GET", "/events", { queue_id: onB.queue_id, last_event_id: String(onB.last_event_id) });
    const forwarded = call(b.url, member, "GET", "/events", { queue_id: quietOnA.queue_id, last_event_id: String(quietOnA.last_event_id) });
    const write = await slowPost(b.port, member, "/messages", { type: "direct", to: JSON.stringify([owner.user_id]), content: "in flight at SIGTERM" });
    await sleep(500);

    const signalled = Date.now();
    b.process.kill("SIGTERM");
    const [l, f] = await Promise.all([local, forwarded]);
    for (const [answer, what] of [[l, "a poll of the node's own queue"], [f, "a poll forwarded to another node"]] as const) {
      expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(200);
      expect(answer.at - signalled, `${what} answered within 2 s`).toBeLessThan(2000);
      expect(JSON.stringify(answer.body.events)).not.toContain("heartbeat");
    }
    // A request arriving now is refused in the envelope (the write keeps the node draining).
    const refused = await call(b.url, owner, "GET", "/users/me");
    expectUnavailable(refused, "a request during the shutdown");
    // The write in flight finishes, and its event reaches the other node.
    const written = await write.finish();
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    const exited = await eventually(async () => (b.process.exitCode !== null || b.process.signalCode !== null ? b.process.exitCode : undefined), "the node's exit", 15_000);
    expect(exited, b.log()).toBe(0);
    expect(b.log()).not.toMatch(/"level":50/);
    const { ids } = await drain(a.url, owner, onA.queue_id as string, (ids) => ids.includes(written.body.id as number), onA.last_event_id as number);
    expect(ids).toContain(written.body.id);
    // The poll forwarded to the other node was ended, not its queue.
    const after = await call(a.url, member, "GET", "/events", { queue_id: quietOnA.queue_id, last_event_id: String(quietOnA.last_event_id), dont_block: "true" });
    expect(after.body.result, JSON.stringify(after.body)).toBe("success");
  });
});
