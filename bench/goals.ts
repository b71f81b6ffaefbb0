/**
 * Issue 14's goals, one place for the table, the JSON and the README. `ratio` is the row's
 * req/s over its own bare baseline's; `all` holds the run's other rows (for "flat" goals).
 */
import type { RowResult } from "./row.js";

export interface Goal {
  text: string;
  met(r: RowResult, ratio: number | undefined, all: ReadonlyMap<string, RowResult>): boolean;
}

const ratioAtLeast = (min: number): Goal => ({ text: `≥ ${min} B`, met: (_r, ratio) => ratio !== undefined && ratio >= min });
const p99AtMost = (ms: number): Goal => ({ text: `p99 ≤ ${ms} ms`, met: (r) => r.p99 !== undefined && r.p99 <= ms });
/** "p50 flat from 1k to 100k users": within 1.5× of the 1k row's p50 (and the ratio goal). */
const presenceFlat: Goal = {
  text: "≥ 0.4 B, p50 ≤ 1.5× the 1k p50",
  met: (r, ratio, all) => {
    const base = all.get("POST /users/me/presence (incremental) @ 1k")?.p50;
    return ratio !== undefined && ratio >= 0.4 && base !== undefined && r.p50 !== undefined && r.p50 <= 1.5 * base;
  },
};

export const GOALS: Record<string, Goal> = {
  "GET /users/me @ 1k": ratioAtLeast(0.6),
  "GET /users/me at half that load @ 1k": p99AtMost(3),
  "GET /server_settings @ 1k": ratioAtLeast(0.6),
  "GET /messages/{id} @ 1k": ratioAtLeast(0.4),
  "POST /users/me/presence (incremental) @ 1k": ratioAtLeast(0.4),
  "POST /users/me/presence (incremental) @ 10k": presenceFlat,
  "POST /users/me/presence (incremental) @ 100k": presenceFlat,
  "POST /users/me/presence (full data) @ 1k": ratioAtLeast(0.15),
  "POST /messages (50-member channel) @ 1k": ratioAtLeast(0.1),
  "POST /messages at 200 sends/s @ 1k": p99AtMost(15),
  "GET /users @ 1k": p99AtMost(20),
  "GET /users @ 10k": p99AtMost(150),
  "POST /register (100 channels) @ 1k": p99AtMost(50),
  "POST /register (100 channels) @ 10k": p99AtMost(300),
  "one message to 1000 long-polling subscribers @ 1k": { text: "all queues updated ≤ 20 ms (median)", met: (r) => r.p50 !== undefined && r.p50 <= 20 },
  "one message to 10000 long-polling subscribers @ 10k": { text: "all queues updated ≤ 200 ms (median)", met: (r) => r.p50 !== undefined && r.p50 <= 200 },
  "idle GET /events long-polls @ 10k": {
    text: "≥ 10,000 at once, RSS ≤ 400 MB",
    met: (r) => (r.figures?.openPolls ?? 0) >= 10_000 && (r.figures?.rssWithPollsMb ?? Infinity) <= 400,
  },
};
