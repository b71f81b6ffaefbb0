/**
 * npm run bench -- --mix: how many people one node and three nodes serve. Each topology
 * runs on a fresh PostgreSQL database and Redis (a key prefix of its own), the nodes in
 * their default configuration (rate limits on), three of them behind HAProxy round-robin;
 * the ramp (ramp.ts) adds simulated users until the actions' p99 reaches 100 ms or a
 * request fails. Prints a table and writes bench/results/mix-postgresql.json.
 */
import type { ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { sql } from "kysely";
import { loadConfig } from "../../src/config.js";
import { createContext } from "../../src/server.js";
import { startHaproxy } from "../haproxy.js";
import { startParley, type Server } from "../processes.js";
import { machine, writeJson } from "../report.js";
import { createBenchRealm, SEND_CHANNEL } from "../seed.js";
import { MIX, P99_LIMIT_MS, STEP_SECONDS, runRamp, type StepResult } from "./ramp.js";

const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bench", "results");
const PG_BASE = process.env.BENCH_MIX_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.BENCH_MIX_REDIS ?? "redis://127.0.0.1:6379";
const STEPS = (process.env.BENCH_MIX_STEPS ?? "100,250,500,1000,1500,2000,3000,4000").split(",").map(Number);
const TOPOLOGIES = [1, 3];

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

export async function runMix(): Promise<void> {
  const outcomes: Array<{ nodes: number; steps: StepResult[]; capacity: number }> = [];
  log(`Parley mixed load: steps ${STEPS.join(", ")} users, ${STEP_SECONDS} s each; per user per minute ${Object.entries(MIX).map(([k, v]) => `${v} ${k}`).join(", ")}, a long-poll always open`);
  for (const nodes of TOPOLOGIES) {
    const database = await freshDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-mix-"));
    const servers: Server[] = [];
    let proxy: ChildProcess | undefined;
    try {
      const ctx = await createContext({ ...loadConfig({}), dataDir, databaseUrl: database.url });
      log(`${nodes} node${nodes === 1 ? "" : "s"}: seeding ${Math.max(...STEPS)} users …`);
      const realm = await createBenchRealm(ctx, Math.max(...STEPS) + 1);
      await sql`analyze`.execute(ctx.db);
      await ctx.db.destroy();
      const env = { REDIS_URL, PARLEY_REDIS_PREFIX: `parley-mix-${crypto.randomBytes(4).toString("hex")}:` };
      for (let i = 0; i < nodes; i++) servers.push(await startParley(dataDir, database.url, env));
      // Registered in Redis right after listening: give the last node a moment.
      await new Promise((r) => setTimeout(r, 500));
      let base = `http://127.0.0.1:${servers[0].port}`;
      if (nodes > 1) {
        const started = await startHaproxy(servers.map((s) => s.port), dataDir);
        proxy = started.process;
        base = started.url;
      }
      const steps = await runRamp({ base, members: realm.members, channel: SEND_CHANNEL, log }, STEPS);
      const capacity = Math.max(0, ...steps.filter((s) => s.served).map((s) => s.users));
      outcomes.push({ nodes, steps, capacity });
    } finally {
      proxy?.kill("SIGTERM");
      await Promise.all(servers.map((s) => s.stop()));
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const m = machine("PostgreSQL + Redis");
  console.log(`\n| nodes | users served (p99 < ${P99_LIMIT_MS} ms, no errors) | at that step: actions/s, p50, p99 |\n| ---: | ---: | --- |`);
  for (const o of outcomes) {
    const at = o.steps.find((s) => s.users === o.capacity);
    console.log(`| ${o.nodes} | ${o.capacity} | ${at ? `${at.actionsPerSecond}/s, ${at.p50} ms, ${at.p99} ms` : "—"} |`);
  }
  const file = path.join(resultsDir, "mix-postgresql.json");
  writeJson(file, { date: new Date().toISOString(), machine: m, mix: MIX, stepSeconds: STEP_SECONDS, p99LimitMs: P99_LIMIT_MS, outcomes });
  log(`wrote ${path.relative(process.cwd(), file)}`);
}

async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `parley_mix_${crypto.randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_BASE });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_BASE });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
