/**
 * The servers under test, as child processes of the bench (so the load generator and the
 * server each get a core): the bare baseline, and Parley as `parley serve` in its default
 * configuration except for the limits a load test must lift.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { shebangNodeFlags } from "../src/cli/node-flags.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Server {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The environment Parley runs with besides PORT, the data directory and DATABASE_URL.
 * Rate limits off: one bench user sends far more requests than a person would. Nothing
 * else is changed (default LOG_LEVEL: the access log is on, written to a file).
 */
export const PARLEY_BENCH_ENV = { PARLEY_RATE_LIMIT_PER_MINUTE: "0" } as const;

export async function startBare(): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(here, "bare-server.js")], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "inherit"] });
  await waitForHttp(port, "/bare", child);
  return serverOf(child, port);
}

// BENCH_SERVER_CLI=/other/checkout/dist/src/cli.js runs another build's server under the same
// bench (old and new code compared alternately; the builds must share the schema).
const defaultCli = process.env.BENCH_SERVER_CLI ?? path.join(here, "..", "src", "cli.js");

/** `env` adds to (or, for the mixed load, replaces) PARLEY_BENCH_ENV; `cli` is the build's dist/src/cli.js. */
export async function startParley(dataDir: string, databaseUrl: string | undefined, env_: Record<string, string> = PARLEY_BENCH_ENV, cli = defaultCli): Promise<Server> {
  const port = await freePort();
  const log = fs.openSync(path.join(dataDir, `server-${port}.log`), "a");
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), PARLEY_DATA_DIR: dataDir, ...env_ };
  delete env.LOG_LEVEL;
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  // The flags `parley` runs with (src/cli/node-flags.ts), then any of BENCH_SERVER_NODE_ARGS
  // ("--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server under load).
  const nodeArgs = [...shebangNodeFlags(cli), ...(process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [])];
  const child = spawn(process.execPath, [...nodeArgs, cli, "serve"], { env, stdio: ["ignore", log, log] });
  fs.closeSync(log);
  await waitForHttp(port, "/api/v1/server_settings", child);
  return serverOf(child, port);
}

/** Resident memory of a process in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

/**
 * Milliseconds the process's main thread (where Parley's JavaScript and SQLite run) has spent
 * on a CPU (Linux /proc schedstat, nanosecond resolution): a cost that, unlike wall time,
 * hardly depends on what else the shared machine runs.
 */
export function mainThreadCpuMs(pid: number): number {
  const ns = Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
  return ns / 1e6;
}

/**
 * Until the process's main thread has been nearly idle (under 5% of a core) for 100 ms: the
 * work a previous step left behind (10,000 re-polls after a fan-out) is done, so the next
 * timed request does not queue behind it.
 */
export async function untilIdle(pid: number, timeoutMs = 30_000): Promise<void> {
  const windowMs = 100;
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const before = mainThreadCpuMs(pid);
    await new Promise((r) => setTimeout(r, windowMs));
    if (mainThreadCpuMs(pid) - before < windowMs * 0.05) return;
  }
  throw new Error(`server (pid ${pid}) still busy after ${timeoutMs} ms`);
}

function serverOf(child: ChildProcess, port: number): Server {
  return {
    port,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        // A server that does not finish its shutdown within 10 s is killed.
        const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => (clearTimeout(force), resolve()));
        child.kill();
      }),
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHttp(port: number, urlPath: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode} (see its log)`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${urlPath}`);
      if (res.status < 500) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`server on port ${port} did not answer within 60 s`);
}
