/**
 * Where one /register spends its time, in process: seeds the register rows' organization
 * (1k users unless `--users N`, with their history), then has the callers register in turn
 * through app.inject and prints the CPU time per request (app.inject's included) and, per
 * SQL statement, the CPU time spent in better-sqlite3. A tool for deciding what to make cheaper;
 * the bench rows measure the server under load.
 *
 *   npm run build && node dist/bench/register-statements.js [--users 1000] [--rounds 3]
 *     [--keep DIR: seed into DIR and leave it there]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/server.js";
import { basicAuth } from "./http-client.js";
import { seedRegisterHistory, unreadCountOf } from "./register-history.js";
import { BODY } from "./rows/register.js";
import { createBenchRealm, registerCallers } from "./seed.js";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/**
 * The process's CPU time in ms (getrusage: all threads, but the others are nearly idle
 * here): unlike wall time, it hardly moves with what else the shared machine runs.
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU time per statement source, in ms, and calls. */
const spent = new Map<string, { ms: number; calls: number }>();

/** Wraps the data-reading and writing methods of better-sqlite3's statements with a timer. */
function timeStatements(): void {
  const probe = new SQLite(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ["all", "get", "run", "iterate"]) {
    const original = proto[method];
    proto[method] = function (this: { source: string; reader: boolean; database: SQLite.Database }, ...args: unknown[]) {
      const start = cpuMs();
      try {
        return original.apply(this, args);
      } finally {
        const key = `${this.database.readonly || isQueryOnly(this.database) ? "R" : "W"} ${method} ${this.source}`;
        const entry = spent.get(key) ?? { ms: 0, calls: 0 };
        entry.ms += cpuMs() - start;
        entry.calls++;
        spent.set(key, entry);
      }
    };
  }
}

const queryOnly = new WeakMap<SQLite.Database, boolean>();
function isQueryOnly(db: SQLite.Database): boolean {
  let known = queryOnly.get(db);
  if (known === undefined) {
    queryOnly.set(db, false); // the pragma below runs through the timed methods too
    queryOnly.set(db, (known = db.pragma("query_only", { simple: true }) === 1));
  }
  return known;
}

async function main(): Promise<void> {
  const users = Number(option("users", "1000"));
  const rounds = Number(option("rounds", "3"));
  const kept = option("keep", "");
  const dir = kept || fs.mkdtempSync(path.join(os.tmpdir(), "parley-register-statements-"));
  try {
    const config = { ...loadConfig({}), dataDir: dir, databaseUrl: undefined };
    const seeding = await createContext(config);
    const realm = await createBenchRealm(seeding, users);
    await seedRegisterHistory(seeding.db, realm);
    // Closed and opened again, as the bench's server starts after seeding: the WAL is checkpointed and gone.
    await seeding.db.destroy();
    const ctx = await createContext(config);
    const app = await buildApp(ctx);
    const callers = registerCallers(realm);
    const register = async (k: number) => {
      const res = await app.inject({
        method: "POST",
        url: "/api/v1/register",
        headers: { authorization: basicAuth(callers[k]), "content-type": "application/x-www-form-urlencoded" },
        payload: BODY,
      });
      if (res.statusCode !== 200) throw new Error(`register: ${res.statusCode} ${res.body.slice(0, 200)}`);
      const queueId = /"queue_id":"([^"]+)"/.exec(res.body)![1];
      // Each register leaves a queue; delete it so the per-user limit is never met.
      await app.inject({ method: "DELETE", url: `/api/v1/events?queue_id=${queueId}`, headers: { authorization: basicAuth(callers[k]) } });
    };
    // Warm the caches and the JIT.
    for (let k = 0; k < callers.length; k++) await register(k);
    timeStatements();
    for (const [label, pick] of [
      ["callers with a few unread", (k: number) => unreadCountOf(k) < 100],
      ["callers with 2,000 unread", (k: number) => unreadCountOf(k) >= 100],
    ] as const) {
      spent.clear();
      let requests = 0;
      const start = cpuMs();
      for (let r = 0; r < rounds; r++) {
        for (let k = 0; k < callers.length; k++) {
          if (!pick(k)) continue;
          await register(k);
          requests++;
        }
      }
      const perRequest = (cpuMs() - start) / requests;
      const sqlMs = [...spent.values()].reduce((a, b) => a + b.ms, 0);
      console.log(`\n${label}: ${requests} registers (and queue deletions), ${perRequest.toFixed(2)} ms of CPU each, of which SQL ${(sqlMs / requests).toFixed(2)} ms`);
      for (const [source, { ms, calls }] of [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, 40)) {
        console.log(`${((ms / requests) * 1000).toFixed(0).padStart(6)} µs/req ${String(calls / requests).padStart(5)}×  ${source.replace(/\s+/g, " ").slice(0, 220)}`);
      }
    }
    await app.close();
    await ctx.db.destroy();
  } finally {
    if (!kept) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
