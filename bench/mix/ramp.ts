/**
 * The mixed load: simulated users join in steps; in each step, after a warm-up, every user
 * acts at the rates of MIX for STEP_SECONDS while their long-polls stay open. A step is
 * served when the actions' p99 is under 100 ms and nothing failed; the capacity is the
 * largest step served.
 */
import type { BenchUser } from "../http-client.js";
import { SimulatedUser, type Sample } from "./simulated-user.js";

/** Actions per user per minute, shaped on a chat client in use. */
export const MIX = { presence: 1, read: 1, send: 0.5, react: 0.3, typing: 1 } as const;
type Action = keyof typeof MIX;
const PER_MINUTE = Object.values(MIX).reduce((a, b) => a + b, 0);

export const STEP_SECONDS = Number(process.env.BENCH_MIX_STEP_SECONDS ?? 20);
const WARMUP_SECONDS = 3;
const JOIN_CONCURRENCY = 20;
export const P99_LIMIT_MS = 100;

export interface StepResult {
  users: number;
  actionsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  served: boolean;
  byAction: Record<string, { count: number; p99: number; errors: number }>;
  /** Distinct failures of the step (status and message), with their counts. */
  failures: Record<string, number>;
}

export interface RampTarget {
  base: string;
  members: BenchUser[];
  /** The 50-member channel sends go to. */
  channel: string;
  log: (line: string) => void;
}

export async function runRamp(target: RampTarget, steps: number[]): Promise<StepResult[]> {
  const users: SimulatedUser[] = [];
  let samples: Sample[] = [];
  const record = (s: Sample) => samples.push(s);
  const results: StepResult[] = [];
  try {
    for (const size of steps) {
      const joining = target.members.slice(users.length, size).map((u) => new SimulatedUser(target.base, u, record));
      for (let i = 0; i < joining.length; i += JOIN_CONCURRENCY) await Promise.all(joining.slice(i, i + JOIN_CONCURRENCY).map((u) => u.start()));
      users.push(...joining);
      const load = startActions(users, target.channel);
      await sleep(WARMUP_SECONDS * 1000);
      samples = [];
      const started = performance.now();
      await sleep(STEP_SECONDS * 1000);
      const window = samples;
      samples = [];
      const result = summarize(size, window, (performance.now() - started) / 1000);
      await load.stop();
      results.push(result);
      target.log(`  ${size} users: ${result.actionsPerSecond} actions/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.errors} errors${result.served ? "" : " (not served)"}`);
      for (const [failure, count] of Object.entries(result.failures)) target.log(`    ${count} × ${failure}`);
      if (!result.served) break;
    }
  } finally {
    await Promise.all(users.map((u) => u.stop()));
  }
  return results;
}

/** Starts the users' actions at the MIX rates, picked at random (a Poisson-like stream). */
function startActions(users: SimulatedUser[], channel: string): { stop(): Promise<void> } {
  const perSecond = (users.length * PER_MINUTE) / 60;
  const weights = Object.entries(MIX) as Array<[Action, number]>;
  const inFlight = new Set<Promise<unknown>>();
  let due = 0;
  let last = performance.now();
  const presenceIds = new WeakMap<SimulatedUser, number>();
  const act = (u: SimulatedUser, action: Action): Promise<unknown> => {
    const other = users[Math.floor(Math.random() * users.length)].user;
    switch (action) {
      case "presence":
        return u
          .call("presence", "POST", "/users/me/presence", { status: "active", slim_presence: "true", last_update_id: presenceIds.get(u) ?? -1 })
          .then((b) => b && presenceIds.set(u, b.presence_last_update_id as number));
      case "read":
        return u.call("read", "GET", "/messages", { anchor: "newest", num_before: 20, num_after: 0, narrow: JSON.stringify([{ operator: "channel", operand: channel }]) });
      case "send":
        return Math.random() < 0.3
          ? u.call("send", "POST", "/messages", { type: "stream", to: channel, topic: "mixed load", content: `a message from ${u.user.id}` })
          : u.call("send", "POST", "/messages", { type: "direct", to: JSON.stringify([other.id]), content: `hello ${other.id}` });
      case "react": {
        const id = u.lastMessageId;
        if (id === undefined) return Promise.resolve();
        const method = u.reacted.has(id) ? "DELETE" : "POST";
        if (method === "POST") u.reacted.add(id);
        else u.reacted.delete(id);
        return u.call("react", method, `/messages/${id}/reactions`, { emoji_name: "thumbs_up" });
      }
      case "typing":
        return u.call("typing", "POST", "/typing", { op: "start", type: "direct", to: JSON.stringify([other.id]) });
    }
  };
  const timer = setInterval(() => {
    const now = performance.now();
    due += ((now - last) / 1000) * perSecond;
    last = now;
    for (; due >= 1; due--) {
      const u = users[Math.floor(Math.random() * users.length)];
      let r = Math.random() * PER_MINUTE;
      const action = weights.find(([, w]) => (r -= w) < 0)?.[0] ?? "presence";
      const p = act(u, action).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  }, 10);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

function summarize(users: number, window: Sample[], seconds: number): StepResult {
  const actions = window.filter((s) => s.action !== "poll");
  const errors = window.filter((s) => !s.ok).length;
  const byAction: StepResult["byAction"] = {};
  for (const name of Object.keys(MIX)) {
    const ms = actions.filter((s) => s.action === name).map((s) => s.ms);
    byAction[name] = { count: ms.length, p99: percentile(ms, 99), errors: window.filter((s) => s.action === name && !s.ok).length };
  }
  const failures: Record<string, number> = {};
  for (const s of window) if (!s.ok) failures[`${s.action}: ${s.failure ?? "?"}`] = (failures[`${s.action}: ${s.failure ?? "?"}`] ?? 0) + 1;
  const all = actions.map((s) => s.ms);
  const p99 = percentile(all, 99);
  return {
    users,
    actionsPerSecond: Math.round((actions.length / seconds) * 10) / 10,
    p50: percentile(all, 50),
    p99,
    errors,
    served: errors === 0 && p99 < P99_LIMIT_MS,
    byAction,
    failures,
  };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 100) / 100;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
