/**
 * npm run bench: autocannon against a bare Fastify endpoint and, in the same run,
 * Parley's endpoints on a seeded database. Servers run in child processes so the load
 * generator and each server get their own core. Prints req/s, p50/p99 and the ratio to
 * the bare baseline. BENCH_SECONDS (default 10) sets each measurement's duration.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/server.js";
import { seedBenchRealm, type BenchSeed } from "./seed.js";
import { extraScenarios } from "./scenarios.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

export interface Scenario {
  name: string;
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: string;
  auth?: { email: string; apiKey: string };
  /**
   * A cycle of requests each connection repeats (e.g. add then remove a reaction), on a
   * path of its own from `pathsPerConnection` so connections never collide.
   */
  sequence?: Array<{ method: "POST" | "DELETE"; body: string }>;
  pathsPerConnection?: string[];
}

export interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export async function measure(port: number, s: Scenario): Promise<Measured> {
  const headers: Record<string, string> = {};
  if (s.auth) headers.authorization = `Basic ${Buffer.from(`${s.auth.email}:${s.auth.apiKey}`).toString("base64")}`;
  if (s.body !== undefined || s.sequence) headers["content-type"] = "application/x-www-form-urlencoded";
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${s.path}`,
    method: s.method ?? "GET",
    body: s.body,
    headers,
    connections: CONNECTIONS,
    duration: SECONDS,
    ...(s.sequence ? { requests: sequenceRequests(s), initialContext: {} } : {}),
  });
  return {
    name: s.name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

function sequenceRequests(s: Scenario): autocannon.Request[] {
  const paths = s.pathsPerConnection ?? [s.path];
  let next = 0;
  return s.sequence!.map((step) => ({
    method: step.method,
    body: step.body,
    setupRequest: (req: autocannon.Request, context: object) => {
      const own = context as { path?: string };
      own.path ??= paths[next++ % paths.length];
      return { ...req, path: own.path };
    },
  }));
}

function startChild(script: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening http:\/\/127\.0\.0\.1:(\d+)/.exec(out) ?? /"port":(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on("exit", (code) => reject(new Error(`${script} exited with ${code}: ${out}`)));
  });
}

async function freePort(): Promise<number> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHttp(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/server_settings`);
      if (res.status < 500) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("Parley did not start");
}

function printTable(baseline: Measured, rows: Measured[]): void {
  const line = (cells: string[]) => console.log(`| ${cells.join(" | ")} |`);
  line(["scenario", "req/s", "p50 ms", "p99 ms", "ratio to bare", "non-2xx"]);
  line(["---", "---:", "---:", "---:", "---:", "---:"]);
  for (const r of [baseline, ...rows]) {
    line([r.name, String(r.requestsPerSecond), String(r.p50), String(r.p99), (r.requestsPerSecond / baseline.requestsPerSecond).toFixed(2), String(r.non2xx)]);
  }
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-bench-"));
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const config = { ...loadConfig({}), dataDir, databaseUrl };
  console.log(`Parley bench: ${SECONDS}s per scenario, ${CONNECTIONS} connections, ${os.cpus().length} cores, database ${databaseUrl ? "PostgreSQL" : "SQLite"}`);

  const ctx = await createContext(config);
  const seed: BenchSeed = await seedBenchRealm(ctx, 1000);
  const extra = await extraScenarios(ctx, seed, { dataDir, databaseUrl });
  await ctx.db.destroy();

  const bare = await startChild(path.join(here, "bare-server.js"), { PORT: "0" });
  const port = await freePort();
  const parley = spawn(process.execPath, [path.join(here, "..", "src", "cli.js"), "serve"], {
    // Rate limits off: the bench drives one user far past a human's request rate on purpose.
    env: { ...process.env, PORT: String(port), PARLEY_DATA_DIR: dataDir, LOG_LEVEL: "warn", PARLEY_RATE_LIMIT_PER_MINUTE: "0", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  await waitForHttp(port);

  try {
    const owner = { email: seed.owner.email, apiKey: seed.owner.apiKey };
    const baseline = await measure(bare.port, { name: "bare Fastify GET (baseline)", path: "/bare" });
    const rows: Measured[] = [];
    const scenarios: Scenario[] = [
      { name: "GET /users/me", path: "/api/v1/users/me", auth: owner },
      { name: "GET /users (1,001 users)", path: "/api/v1/users", auth: owner },
      { name: "GET /server_settings", path: "/api/v1/server_settings" },
      ...(await extra.scenarios(port)),
    ];
    for (const s of scenarios) rows.push(await measure(port, s));
    printTable(baseline, rows);
    for (const report of extra.reports) await report(port);
  } finally {
    bare.child.kill();
    parley.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
