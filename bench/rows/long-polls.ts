/**
 * Event delivery: idle long-polls held at once (server memory), one channel message to
 * every subscriber's waiting poll (fan-out), and send → delivery on one waiting poll.
 * Every user of the realm gets one queue, so per-user queue limits never apply.
 */
import { randomBytes } from "node:crypto";
import { api, form } from "../http-client.js";
import { percentile } from "../load.js";
import { PollPool } from "../long-polls.js";
import { mainThreadCpuMs, rssMb } from "../processes.js";
import type { PhaseEnv, Row, RowResult } from "../row.js";
import { EVERYONE_CHANNEL } from "../seed.js";

const FANOUT_REPEATS = 5;
const DELIVERY_MESSAGES = 200;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pollers {
  pool: PollPool;
  rssBeforeMb: number;
  rssWithPollsMb: number;
}

/** A waiting poll for every user of the realm (one per phase), with the server's RSS before and after. */
const everyonePolling = (env: PhaseEnv): Promise<Pollers> =>
  env.shared(
    "everyone-polling",
    async () => {
      const rssBeforeMb = rssMb(env.pid);
      const pool = await PollPool.open(env.port, [env.realm.owner, ...env.realm.members]);
      await pause(1000); // let the server settle with every poll waiting
      return { pool, rssBeforeMb, rssWithPollsMb: rssMb(env.pid) };
    },
    (p) => p.pool.close(),
  );

async function fanout(env: PhaseEnv): Promise<RowResult> {
  const { pool } = await everyonePolling(env);
  const times: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < FANOUT_REPEATS; i++) {
    const token = `fanout${randomBytes(6).toString("hex")}`;
    const body = form({ type: "stream", to: EVERYONE_CHANNEL, topic: "fan-out", content: `Hello all ${token}` });
    const cpuBefore = mainThreadCpuMs(env.pid);
    times.push(await pool.timeUntilAllReceive(token, () => api(env.port, env.realm.owner, "POST", "/messages", body)));
    cpuMs.push(mainThreadCpuMs(env.pid) - cpuBefore);
    await pause(200);
  }
  times.sort((a, b) => a - b);
  cpuMs.sort((a, b) => a - b);
  const serverCpuMs = Math.round(percentile(cpuMs, 50) * 100) / 100;
  return {
    p50: percentile(times, 50),
    p99: Math.round(times[times.length - 1] * 100) / 100,
    failures: pool.failures,
    figures: { queues: pool.size, serverCpuMs, serverCpuUsPerPoll: Math.round((serverCpuMs * 1000) / pool.size) },
    note: `p50 = median, p99 = max of ${FANOUT_REPEATS} sends: from the send until every subscriber's waiting poll returned the message; server main thread's CPU per send (median) ${serverCpuMs} ms`,
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
