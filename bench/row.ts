/** What a bench row is, and what it gets to run with. */
import type { Kysely } from "kysely";
import type { DB } from "../src/db/schema.js";
import type { LoadClient } from "./load.js";
import type { BenchRealm } from "./seed.js";

/** The bare baseline's request shape a row's req/s is divided by (GET, or POST with a form body). */
export type Shape = "GET" | "POST";

export interface RowResult {
  requestsPerSecond?: number;
  p50?: number;
  p99?: number;
  /** Non-2xx responses, errors and timeouts during the measurement. */
  failures?: number;
  /** Other figures (memory, counts), kept in the JSON and shown after the table. */
  figures?: Record<string, number>;
  /** What p50/p99 mean when they are not request latencies. */
  note?: string;
}

export interface Row {
  name: string;
  /** Humans in the organization when the row runs (rows are grouped by size: 1k, 10k, 100k). */
  users: number;
  /** Measured against a bare baseline of this shape right before; absent: no ratio. */
  shape?: Shape;
  /** The load generator of the row and of its baseline (default autocannon). */
  client?: LoadClient;
  /** Data the row needs, seeded in bulk once per run (shared by rows with the same function) before the first server starts. */
  seed?: (db: Kysely<DB>, realm: BenchRealm) => Promise<void>;
  run(env: PhaseEnv): Promise<RowResult>;
}

/** One organization size, one Parley process: what rows of that size share. */
export interface PhaseEnv {
  port: number;
  /** The bare baseline server's port (bench/bare-server.ts). */
  barePort: number;
  pid: number;
  realm: BenchRealm;
  /** Setup shared by rows of this phase, built on first use and released at the phase's end. */
  shared<T>(key: string, build: () => Promise<T>, release?: (value: T) => Promise<void> | void): Promise<T>;
  /** Releases a shared setup early (e.g. long-polls other rows should not run next to). */
  release(key: string): Promise<void>;
  /** Results of rows already measured in this run, by rowKey. */
  results: ReadonlyMap<string, RowResult>;
}

export const sizeLabel = (users: number): string => (users >= 1000 ? `${users / 1000}k` : String(users));
/** The row's identity in goals, --only and the JSON: "GET /users @ 10k". */
export const rowKey = (row: Pick<Row, "name" | "users">): string => `${row.name} @ ${sizeLabel(row.users)}`;
