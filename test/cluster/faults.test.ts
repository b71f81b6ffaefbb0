/**
 * Faults of a cluster: PostgreSQL and Redis restarting under two running nodes, a node
 * killed under load, a node stopped with SIGTERM. The nodes run on a PostgreSQL and a Redis
 * of this file's own (test/support/private-services.ts): the shared instances other test
 * files use are never stopped. Runs with TEST_DATABASE_URL and TEST_REDIS_URL (like the
 * other cluster tests) when PostgreSQL's binaries and redis-server are installed.
 */
import http from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { clusterConfigured, startCluster, type Cluster } from "../support/cluster.js";
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
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Body, ms: Date.now() - started });
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
    await cluster?.stop();
    await Promise.all([postgres?.destroy(), redis?.destroy()]);
  });

  it("answers 503 while PostgreSQL is down, recovers when it is back, and loses no event", async () => {
    const [a, b] = cluster.nodes;
    const qa = await ok(a.url, owner, "POST", "/register", { event_types: ["message"] });
    const qb = await ok(b.url, owner, "POST", "/register", { event_types: ["message"] });
    const before = await ok(a.url, member, "POST", "/messages", { type: "direct", to: [owner.user_id], content: "before the restart" });

    await postgres.stop("fast");
    for (const node of [a, b]) {
      const sent = await sendDirect(node.url, member, owner, "while down");
      expectUnavailable(sent, "send");
      expect(sent.ms, "answered at once, not after a hang").toBeLessThan(8000);
      const read = await call(node.url, owner, "GET", "/messages", { anchor: "newest", num_before: "5", num_after: "0" });
      expectUnavailable(read, "read");
      const registered = await call(node.url, owner, "POST", "/register", { event_types: ["message"] });
      expectUnavailable(registered, "register");
    }

    await postgres.start();
    // No restart of Parley: each node's pool connects again.
    const after: number[] = [];
    for (const node of [a, b]) {
      after.push(await eventually(async () => {
        const res = await sendDirect(node.url, member, owner, `after the restart, through ${node.port}`);
        return res.status === 200 ? (res.body.id as number) : undefined;
      }, "a send after PostgreSQL came back"));
    }
    // The queues registered before the restart go on, with every message in order.
    const expected = [before.id as number, ...after];
    for (const [q, node] of [[qa, a], [qb, b]] as const) {
      const { ids } = await drain(node.url, owner, q.queue_id as string, (ids) => ids.length >= expected.length, q.last_event_id as number);
      expect(ids).toEqual(expected);
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
});
