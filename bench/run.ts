/**
 * npm run bench [-- --only <substring>[,…]] [-- --list] [-- --mix]: every row of issue 14's table
 * against Parley in a child process, each throughput row right after a bare Fastify
 * baseline of the same request shape (bench/bare-server.ts), on SQLite or, with
 * BENCH_DATABASE_URL, PostgreSQL. Prints a markdown table and writes
 * bench/results/latest-<engine>.json (partial-<engine>.json for --only runs). --mix runs
 * the mixed load of several nodes instead (bench/mix/run.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { loadConfig } from "../src/config.js";
import type { AppContext } from "../src/context.js";
import { createContext } from "../src/server.js";
import SQLite from "better-sqlite3";
import { SQLITE_FILE_NAME } from "../src/db/location.js";
import { GOALS } from "./goals.js";
import { runLoad, type LoadClient, type LoadResult } from "./load.js";
import { PARLEY_BENCH_ENV, startBare, startParley, type Server } from "./processes.js";
import { machine, markdownReport, outcomeOf, writeJson, type RowOutcome } from "./report.js";
import { rowKey, sizeLabel, type PhaseEnv, type Row, type RowResult, type Shape } from "./row.js";
import { ALL_ROWS } from "./rows/index.js";
import { runMix } from "./mix/run.js";
import { SEND_BODY } from "./rows/messages-setup.js";
import { createBenchRealm, growRealm, userCount, type BenchRealm } from "./seed.js";
import { CONNECTIONS, DATABASE_URL, ENGINE, SECONDS } from "./settings.js";

const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "results");

function selectedRows(argv: string[]): { rows: Row[]; partial: boolean; list: boolean } {
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--only") only.push(...(argv[++i] ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean));
    else if (argv[i].startsWith("--only=")) only.push(...argv[i].slice(7).split(",").map((s) => s.trim().toLowerCase()).filter(Boolean));
  }
  const rows = only.length === 0 ? ALL_ROWS : ALL_ROWS.filter((r) => only.some((o) => rowKey(r).toLowerCase().includes(o)));
  return { rows, partial: only.length > 0, list: argv.includes("--list") };
}

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

const baselineOf = (port: number, shape: Shape, client?: LoadClient): Promise<LoadResult> =>
  runLoad(port, shape === "GET" ? { path: "/bare", client } : { method: "POST", path: "/bare", body: SEND_BODY, client });

/** Runs one size's rows against a fresh Parley process; the realm has `users` humans by then. */
async function runPhase(rows: Row[], realm: BenchRealm, bare: Server, dataDir: string, outcomes: RowOutcome[], results: Map<string, RowResult>): Promise<void> {
  const parley = await startParley(dataDir, DATABASE_URL);
  const shared = new Map<string, { value: Promise<unknown>; release?: (v: never) => Promise<void> | void }>();
  const release = async (key: string) => {
    const entry = shared.get(key);
    shared.delete(key);
    if (entry?.release) await entry.release((await entry.value.catch(() => undefined)) as never);
  };
  const env: PhaseEnv = {
    port: parley.port,
    barePort: bare.port,
    pid: parley.pid,
    realm,
    results,
    release,
    shared: <T>(key: string, build: () => Promise<T>, rel?: (v: T) => Promise<void> | void) => {
      if (!shared.has(key)) shared.set(key, { value: build(), release: rel as (v: never) => void });
      return shared.get(key)!.value as Promise<T>;
    },
  };
  try {
    // A fresh process runs unoptimized code at first: warm the common path up before measuring.
    await runLoad(parley.port, { path: "/api/v1/users/me", auth: realm.owner, seconds: 2 });
    for (const row of rows) {
      log(`${rowKey(row)} …`);
      let baseline: LoadResult | undefined;
      let result: RowResult | Error;
      try {
        if (row.shape) baseline = await baselineOf(bare.port, row.shape, row.client);
        result = await row.run(env);
        results.set(rowKey(row), result);
      } catch (err) {
        result = err instanceof Error ? err : new Error(String(err));
      }
      const outcome = outcomeOf(row, result, baseline, results);
      outcomes.push(outcome);
      log(`  ${outcome.error ? `error: ${outcome.error}` : `${outcome.requestsPerSecond ?? "-"} req/s, p50 ${outcome.p50 ?? "-"}, p99 ${outcome.p99 ?? "-"}, ratio ${outcome.ratio ?? "-"}`}`);
    }
  } finally {
    for (const key of [...shared.keys()]) await release(key).catch(() => {});
    await parley.stop();
  }
}

/** Copies the write-ahead log into the database file and empties it, through a connection of its own. */
function checkpointSqlite(dataDir: string): void {
  const db = new SQLite(path.join(dataDir, SQLITE_FILE_NAME));
  try {
    db.pragma("busy_timeout = 5000");
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
    if (result.busy !== 0) throw new Error("the write-ahead log could not be emptied before the server started");
  } finally {
    db.close();
  }
}

async function engineVersion(ctx: AppContext): Promise<string> {
  const query = DATABASE_URL ? sql<{ v: string }>`select current_setting('server_version') as v` : sql<{ v: string }>`select sqlite_version() as v`;
  const { rows } = await query.execute(ctx.db);
  return `${DATABASE_URL ? "PostgreSQL" : "SQLite"} ${rows[0]?.v ?? ""}`.trim();
}

async function main(): Promise<void> {
  if (process.argv.includes("--mix")) return runMix();
  const unknownGoals = Object.keys(GOALS).filter((key) => !ALL_ROWS.some((r) => rowKey(r) === key));
  if (unknownGoals.length > 0) throw new Error(`goals for rows that do not exist: ${unknownGoals.join("; ")}`);
  const { rows, partial, list } = selectedRows(process.argv.slice(2));
  if (list) {
    for (const r of ALL_ROWS) console.log(`${rowKey(r)}${GOALS[rowKey(r)] ? `  (goal: ${GOALS[rowKey(r)].text})` : ""}`);
    return;
  }
  if (rows.length === 0) throw new Error("no row matches --only; see --list");
  const started = Date.now();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-"));
  const ctx = await createContext({ ...loadConfig({}), dataDir, databaseUrl: DATABASE_URL });
  const bare = await startBare();
  const outcomes: RowOutcome[] = [];
  const results = new Map<string, RowResult>();
  try {
    const m = machine(await engineVersion(ctx));
    log(`Parley bench: ${rows.length} rows, ${SECONDS} s per measurement, ${CONNECTIONS} connections, ${m.engine}`);
    const sizes = [...new Set(rows.map((r) => r.users))].sort((a, b) => a - b);
    log(`seeding ${sizeLabel(sizes[0])} users …`);
    const realm = await createBenchRealm(ctx, Math.max(1000, sizes[0]));
    for (const seed of new Set(rows.flatMap((r) => (r.seed ? [r.seed] : [])))) await seed(ctx.db, realm);
    for (const size of sizes) {
      if (userCount(realm) < size) {
        log(`growing the organization to ${sizeLabel(size)} users …`);
        await growRealm(ctx.db, realm, size);
      }
      // PostgreSQL's autovacuum would analyze bulk-loaded tables soon after; a bench that
      // starts right away must do it, or the planner works from the empty tables' statistics.
      if (DATABASE_URL) await sql`analyze`.execute(ctx.db);
      // SQLite: the bulk seeding's write-ahead log (25 MB at 10k users) is copied into the
      // database and emptied, as when an imported organization's server starts; left there,
      // every read of the server went through it (its own commits would have reset it).
      else checkpointSqlite(dataDir);
      await runPhase(rows.filter((r) => r.users === size), realm, bare, dataDir, outcomes, results);
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(markdownReport(outcomes, m, { seconds: SECONDS, connections: CONNECTIONS }));
    console.log(`\nTotal run time: ${Math.floor(seconds / 60)} min ${seconds % 60} s.`);
    const file = path.join(resultsDir, `${partial ? "partial" : "latest"}-${ENGINE}.json`);
    writeJson(file, {
      date: new Date().toISOString(),
      machine: m,
      settings: { seconds: SECONDS, connections: CONNECTIONS, parleyEnv: PARLEY_BENCH_ENV },
      runSeconds: seconds,
      rows: outcomes,
    });
    log(`wrote ${path.relative(process.cwd(), file)}`);
  } finally {
    await bare.stop();
    await ctx.db.destroy();
    // BENCH_KEEP_DATA=1 keeps the organization and the servers' logs (server-<port>.log, with the access log).
    if (!process.env.BENCH_KEEP_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
