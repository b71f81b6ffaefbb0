/**
 * Presence and event-delivery benchmarks, run against a Parley server on 127.0.0.1:
 * (a) POST /users/me/presence with 1,000 and 10,000 users' presence rows seeded directly
 *     in the database: incremental polls (last_update_id current) and full fetches
 *     (last_update_id = -1), with autocannon;
 * (b) 1,000 idle long-polls held open on real sockets while timing 200 direct messages
 *     from send to delivery on one waiting GET /events (p50/p99).
 * Returns plain numbers; the lead's runner prints them.
 */
import http from "node:http";
import path from "node:path";
import autocannon from "autocannon";
import type { Kysely } from "kysely";
import { openDb } from "../src/db/connect.js";
import type { DB } from "../src/db/schema.js";
import { generateApiKey } from "../src/lib/secrets.js";
import { Role } from "../src/lib/roles.js";

export interface BenchUser {
  id: number;
  email: string;
  apiKey: string;
}

export interface PresenceAndEventsOptions {
  port: number;
  /** Seeded human users of one realm; users[0] polls presence and sends the messages. */
  users: BenchUser[];
  /** Where the server's database is (same values the server got). */
  dataDir: string;
  databaseUrl?: string;
  seconds?: number;
  connections?: number;
  idlePolls?: number;
  messages?: number;
}

export interface LoadNumbers {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  bytesPerResponse: number;
  non2xx: number;
}

export interface PresenceAndEventsResult {
  presence: Array<{ users: number; incremental: LoadNumbers; full: LoadNumbers }>;
  delivery: { idlePolls: number; messages: number; p50: number; p99: number; max: number };
}

const auth = (u: BenchUser) => `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;

export async function runPresenceAndEventsBench(opts: PresenceAndEventsOptions): Promise<PresenceAndEventsResult> {
  const db = openDb({ databaseUrl: opts.databaseUrl, sqlitePath: path.join(opts.dataDir, "parley.sqlite3") });
  const agent = new http.Agent({ keepAlive: true, maxSockets: (opts.idlePolls ?? 1000) + 50 });
  try {
    const presence: PresenceAndEventsResult["presence"] = [];
    for (const n of [1000, 10_000]) {
      await seedPresence(db, opts.users[0], n);
      presence.push({ users: n, ...(await measurePresence(opts)) });
    }
    const delivery = await measureDelivery(opts, agent);
    return { presence, delivery };
  } finally {
    agent.destroy();
    await db.destroy();
  }
}

/** Makes the realm have `n` human users with presence rows (extra users inserted in bulk). */
async function seedPresence(db: Kysely<DB>, caller: BenchUser, n: number): Promise<void> {
  const me = await db.selectFrom("users").select(["realm_id"]).where("id", "=", caller.id).executeTakeFirstOrThrow();
  const realmId = me.realm_id;
  const now = Math.floor(Date.now() / 1000);
  let ids = (await db.selectFrom("users").select("id").where("realm_id", "=", realmId).where("is_bot", "=", 0).orderBy("id").execute()).map((r) => r.id);
  for (let start = ids.length; start < n; start += 500) {
    const batch = Array.from({ length: Math.min(500, n - start) }, (_, i) => ({
      realm_id: realmId,
      delivery_email: `presence${start + i}@bench.example.com`,
      full_name: `Presence User ${start + i}`,
      role: Role.MEMBER,
      api_key: generateApiKey(),
      date_joined: now,
    }));
    await db.insertInto("users").values(batch).execute();
  }
  ids = (await db.selectFrom("users").select("id").where("realm_id", "=", realmId).where("is_bot", "=", 0).orderBy("id").limit(n).execute()).map((r) => r.id);
  await db.deleteFrom("presence").where("realm_id", "=", realmId).execute();
  for (let start = 0; start < ids.length; start += 500) {
    await db
      .insertInto("presence")
      .values(
        ids.slice(start, start + 500).map((id, i) => ({
          realm_id: realmId,
          user_id: id,
          last_active_time: now - ((start + i) % 600),
          last_connected_time: now - ((start + i) % 300),
          last_update_id: start + i + 1,
        })),
      )
      .execute();
  }
  await db.deleteFrom("presence_sequence").where("realm_id", "=", realmId).execute();
  await db.insertInto("presence_sequence").values({ realm_id: realmId, last_update_id: ids.length }).execute();
}

async function measurePresence(opts: PresenceAndEventsOptions): Promise<{ incremental: LoadNumbers; full: LoadNumbers }> {
  const caller = opts.users[0];
  // Warm-up: records the caller's own report once, and gives the current update id.
  const warm = await request(opts.port, "POST", "/api/v1/users/me/presence", caller, "status=active&last_update_id=-1");
  const current = (JSON.parse(warm.body) as { presence_last_update_id: number }).presence_last_update_id;
  const run = (body: string) => load(opts, "/api/v1/users/me/presence", caller, body);
  return {
    incremental: await run(`status=active&last_update_id=${current}`),
    full: await run("status=active&last_update_id=-1"),
  };
}

async function load(opts: PresenceAndEventsOptions, urlPath: string, user: BenchUser, body: string): Promise<LoadNumbers> {
  const result = await autocannon({
    url: `http://127.0.0.1:${opts.port}${urlPath}`,
    method: "POST",
    body,
    headers: { authorization: auth(user), "content-type": "application/x-www-form-urlencoded" },
    connections: opts.connections ?? 10,
    duration: opts.seconds ?? 10,
  });
  const responses = Math.max(1, result.requests.total);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerResponse: Math.round(result.throughput.total / responses),
    non2xx: result.non2xx,
  };
}

/** Holds idle long-polls open, then times send → delivery on one waiting queue. */
async function measureDelivery(opts: PresenceAndEventsOptions, agent: http.Agent): Promise<PresenceAndEventsResult["delivery"]> {
  const idlePolls = opts.idlePolls ?? 1000;
  const messages = opts.messages ?? 200;
  const [sender, receiver, ...rest] = opts.users;
  const idleOwners = rest.length > 0 ? rest : [sender];
  const register = async (u: BenchUser) =>
    JSON.parse((await request(opts.port, "POST", "/api/v1/register", u, `event_types=${encodeURIComponent('["message"]')}`, agent)).body) as {
      queue_id: string;
      last_event_id: number;
    };

  // Idle queues: each with a long-poll left waiting on its own socket.
  const idle: http.ClientRequest[] = [];
  for (let i = 0; i < idlePolls; i++) {
    const owner = idleOwners[i % idleOwners.length];
    const q = await register(owner);
    idle.push(openPoll(opts.port, owner, q.queue_id, q.last_event_id, agent).req);
  }

  const q = await register(receiver);
  let last = q.last_event_id;
  const latencies: number[] = [];
  for (let i = 0; i < messages; i++) {
    const poll = openPoll(opts.port, receiver, q.queue_id, last, agent);
    await new Promise((r) => setTimeout(r, 2)); // let the poll reach the server and wait
    const start = performance.now();
    const body = `type=direct&to=${encodeURIComponent(JSON.stringify([receiver.id]))}&content=${encodeURIComponent(`bench ${i}`)}`;
    const send = request(opts.port, "POST", "/api/v1/messages", sender, body, agent);
    const events = (JSON.parse(await poll.done) as { events: Array<{ id: number; type: string }> }).events;
    latencies.push(performance.now() - start);
    await send;
    if (events.length > 0) last = events[events.length - 1].id;
  }
  for (const req of idle) req.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2));
  return { idlePolls, messages, p50: pct(50), p99: pct(99), max: Number(latencies[latencies.length - 1].toFixed(2)) };
}

function openPoll(port: number, user: BenchUser, queueId: string, lastEventId: number, agent: http.Agent) {
  const qs = `queue_id=${encodeURIComponent(queueId)}&last_event_id=${lastEventId}`;
  let req!: http.ClientRequest;
  const done = new Promise<string>((resolve, reject) => {
    req = http.request({ host: "127.0.0.1", port, method: "GET", path: `/api/v1/events?${qs}`, headers: { authorization: auth(user) }, agent }, (res) => {
      let data = "";
      res.on("data", (c: Buffer) => (data += c.toString()));
      res.on("end", () => resolve(data));
    });
    req.on("error", reject);
    req.end();
  });
  done.catch(() => {}); // idle polls are destroyed at the end
  return { req, done };
}

function request(port: number, method: string, urlPath: string, user: BenchUser, body: string, agent?: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: urlPath,
        agent,
        headers: { authorization: auth(user), "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let data = "";
        res.on("data", (c: Buffer) => (data += c.toString()));
        res.on("end", () => (res.statusCode === 200 ? resolve({ status: 200, body: data }) : reject(new Error(`${method} ${urlPath}: ${res.statusCode} ${data}`))));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
