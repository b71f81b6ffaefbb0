/**
 * Event delivery: idle long-polls held at once (server memory), one channel message to
 * every subscriber's waiting poll (fan-out), and send → delivery on one waiting poll.
 * Every user of the realm gets one queue, so per-user queue limits never apply.
 *
 * A fan-out is timed twice: until every queue holds the message (the sender's response,
 * which Parley writes once the message is in every queue: issue 14's "all queues
 * updated"), and until every waiting poll has returned it, next to a bare Fastify server
 * answering as many waiting polls with a body of the same size (measured right before the
 * polls open): one socket write per poll, ~20-30 µs each on this machine, bounds both.
 */
import { randomBytes } from "node:crypto";
import { api, basicAuth, form } from "../http-client.js";
import { percentile } from "../load.js";
import { PollPool } from "../long-polls.js";
import { mainThreadCpuMs, rssMb, untilIdle } from "../processes.js";
import { RequestTimer } from "../timed-request.js";
import type { PhaseEnv, Row, RowResult } from "../row.js";
import { EVERYONE_CHANNEL } from "../seed.js";

const FANOUT_REPEATS = 5;
/** Fan-outs run before the timed ones (the bare server's too): a fresh path's first run is unoptimized code. */
const FANOUT_WARMUPS = 2;
const DELIVERY_MESSAGES = 200;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pollers {
  pool: PollPool;
  rssBeforeMb: number;
  rssWithPollsMb: number;
  /** The bare server answering as many waiting polls, measured before they opened. */
  bare: { medianMs: number; bodyBytes: number };
}

/** A waiting poll for every user of the realm (one per phase), with the server's RSS before and after. */
const everyonePolling = (env: PhaseEnv): Promise<Pollers> =>
  env.shared(
    "everyone-polling",
    async () => {
      const users = [env.realm.owner, ...env.realm.members];
      // Before Parley's polls: the bench process holds one set of sockets at a time.
      const bare = await bareFanout(env.barePort, users.length);
      const rssBeforeMb = rssMb(env.pid);
      const pool = await PollPool.open(env.port, users);
      await pause(1000); // let the server settle with every poll waiting
      return { pool, rssBeforeMb, rssWithPollsMb: rssMb(env.pid), bare };
    },
    (p) => p.pool.close(),
  );

const median = (xs: number[]) => Math.round(percentile([...xs].sort((a, b) => a - b), 50) * 100) / 100;
const max = (xs: number[]) => Math.round(Math.max(...xs) * 100) / 100;

/** A GET /events answer carrying a channel message, about the size of Parley's in the fan-out rows. */
const bareAnswer = (token: string) =>
  JSON.stringify({
    result: "success",
    msg: "",
    events: [
      {
        type: "message",
        message: {
          id: 123456, sender_id: 1, content: `<p>Hello all ${token}</p>`, recipient_id: 7, timestamp: 1_790_000_000, client: "website",
          subject: "fan-out", topic_links: [], is_me_message: false, reactions: [], submessages: [], sender_full_name: "Bench Owner",
          sender_email: "user1@bench.example.com", sender_realm_str: "", display_recipient: "everyone", type: "stream", stream_id: 2,
          avatar_url: null, content_type: "text/html",
        },
        flags: [],
        id: 0,
      },
    ],
  }) + "\n";

/** FANOUT_REPEATS releases of `count` polls waiting on the bare server: the median time until all returned. */
async function bareFanout(port: number, count: number): Promise<Pollers["bare"]> {
  const pool = await PollPool.bare(port, count);
  try {
    const times: number[] = [];
    for (let i = -FANOUT_WARMUPS; i < FANOUT_REPEATS; i++) {
      await everyPollWaiting(port, count);
      const token = `bare${randomBytes(6).toString("hex")}`;
      const release = () => fetch(`http://127.0.0.1:${port}/bare-release`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form({ body: bareAnswer(token) }) }).then((r) => r.text());
      const ms = await pool.timeUntilAllReceive(token, release).catch((err: Error) => Promise.reject(new Error(`bare server: ${err.message}`)));
      if (i >= 0) times.push(ms);
      await pause(200);
    }
    if (pool.failures > 0) throw new Error(`bare fan-out: ${pool.lastError}`);
    return { medianMs: median(times), bodyBytes: pool.lastBodyBytes };
  } finally {
    pool.close();
  }
}

/** Until the bare server holds `count` polls (they are sent as their sockets connect, and again after each answer). */
async function everyPollWaiting(port: number, count: number): Promise<void> {
  for (let tries = 0; ; tries++) {
    const { waiting } = (await fetch(`http://127.0.0.1:${port}/bare-waiting`).then((r) => r.json())) as { waiting: number };
    if (waiting >= count) return;
    if (tries === 600) throw new Error(`bare server: ${waiting} of ${count} polls waiting after 60 s`);
    await pause(100);
  }
}

async function fanout(env: PhaseEnv): Promise<RowResult> {
  const { pool, bare } = await everyonePolling(env);
  const timer = new RequestTimer();
  const headers = { authorization: basicAuth(env.realm.owner), "content-type": "application/x-www-form-urlencoded" };
  const updated: number[] = [];
  const delivered: number[] = [];
  const cpuMs: number[] = [];
  for (let i = -FANOUT_WARMUPS; i < FANOUT_REPEATS; i++) {
    // As the bare server's polls are all waiting before each release: the previous send's
    // re-polls (one GET /events per subscriber) are answered before this send is timed.
    await untilIdle(env.pid);
    const token = `fanout${randomBytes(6).toString("hex")}`;
    const body = form({ type: "stream", to: EVERYONE_CHANNEL, topic: "fan-out", content: `Hello all ${token}` });
    const cpuBefore = mainThreadCpuMs(env.pid);
    let updatedMs = 0;
    const send = async () => (updatedMs = await timer.time({ url: `http://127.0.0.1:${env.port}/api/v1/messages`, method: "POST", headers, body }));
    const deliveredMs = await pool.timeUntilAllReceive(token, send);
    if (i >= 0) {
      updated.push(updatedMs);
      delivered.push(deliveredMs);
      cpuMs.push(mainThreadCpuMs(env.pid) - cpuBefore);
    }
    await pause(200);
  }
  await timer.close();
  const serverCpuMs = median(cpuMs);
  const deliveredMs = median(delivered);
  return {
    p50: median(updated),
    p99: max(updated),
    failures: pool.failures,
    figures: {
      queues: pool.size,
      deliveredP50Ms: deliveredMs,
      deliveredMaxMs: max(delivered),
      bareDeliveredP50Ms: bare.medianMs,
      deliveredRatio: Math.round((bare.medianMs / deliveredMs) * 100) / 100,
      answerBytes: pool.lastBodyBytes,
      bareAnswerBytes: bare.bodyBytes,
      serverCpuMs,
      serverCpuUsPerPoll: Math.round((serverCpuMs * 1000) / pool.size),
    },
    note:
      `p50 = median, p99 = max of ${FANOUT_REPEATS} sends (after ${FANOUT_WARMUPS} untimed), from the send until every queue held the message (the sender's response). ` +
      `Until every waiting poll returned it: median ${deliveredMs} ms, max ${max(delivered)} ms; a bare Fastify server answering ${pool.size} waiting polls ` +
      `(${bare.bodyBytes}-byte bodies; Parley's ${pool.lastBodyBytes}): median ${bare.medianMs} ms (ratio ${Math.round((bare.medianMs / deliveredMs) * 100) / 100}). ` +
      `Server main thread's CPU per send (median) ${serverCpuMs} ms`,
  };
}

async function idle(env: PhaseEnv): Promise<RowResult> {
  const p = await everyonePolling(env);
  return {
    failures: p.pool.failures,
    figures: { openPolls: p.pool.open, rssBeforeMb: p.rssBeforeMb, rssWithPollsMb: p.rssWithPollsMb },
    note: `${p.pool.open} long-polls open; server RSS ${p.rssBeforeMb} MB before, ${p.rssWithPollsMb} MB with them`,
  };
}

/** The earlier bench's report: direct messages to one waiting poll while the others sit idle. */
async function delivery(env: PhaseEnv): Promise<RowResult> {
  const idlePolls = (await everyonePolling(env)).pool;
  const receiver = env.realm.members[1];
  const single = await PollPool.open(env.port, [receiver]);
  try {
    const times: number[] = [];
    for (let i = 0; i < DELIVERY_MESSAGES; i++) {
      const token = `direct${randomBytes(6).toString("hex")}`;
      const body = form({ type: "direct", to: JSON.stringify([receiver.id]), content: `Hi ${token}` });
      times.push(await single.timeUntilAllReceive(token, () => api(env.port, env.realm.owner, "POST", "/messages", body)));
    }
    times.sort((a, b) => a - b);
    return {
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      failures: single.failures,
      figures: { messages: DELIVERY_MESSAGES, idlePolls: idlePolls.size, maxMs: Math.round(times[times.length - 1] * 100) / 100 },
      note: `${DELIVERY_MESSAGES} direct messages, each timed from the send until the receiver's waiting poll returned it, with ${idlePolls.size} other polls open`,
    };
  } finally {
    single.close();
    await env.release("everyone-polling");
  }
}

/** At 1k the delivery row releases the polls after the fan-out; at 10k the fan-out is their last user. */
const fanoutRow = (users: number, releaseAfter: boolean): Row => ({
  name: `one message to ${users} long-polling subscribers`,
  users,
  run: async (env) => {
    try {
      return await fanout(env);
    } finally {
      if (releaseAfter) await env.release("everyone-polling");
    }
  },
});

export const longPollRows1k: Row[] = [fanoutRow(1000, false), { name: "send → delivery on a waiting GET /events", users: 1000, run: delivery }];

export const longPollRows10k: Row[] = [{ name: "idle GET /events long-polls", users: 10_000, run: idle }, fanoutRow(10_000, true)];
