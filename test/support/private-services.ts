/**
 * A PostgreSQL and a Redis of a test's own, which it may stop and start at will: the fault
 * tests never touch the machine's shared instances (other test files use them meanwhile).
 * PostgreSQL is a throwaway cluster made with the distribution's binaries (initdb refuses
 * to run as root: as root they run as the postgres user); Redis is `redis-server` without
 * persistence, so a restart comes back empty, as a crashed cache would.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The bin folder of the newest installed PostgreSQL, if any. */
function postgresBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return undefined;
  const versions = fs.readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(base, v, "bin");
    if (["initdb", "pg_ctl", "postgres"].every((b) => fs.existsSync(path.join(bin, b)))) return bin;
  }
  return undefined;
}

const asRoot = process.getuid?.() === 0;

/** Whether this machine can run private instances (PostgreSQL's binaries, redis-server, and a postgres user when root). */
export function privateServicesAvailable(): boolean {
  if (postgresBin() === undefined) return false;
  if (spawnSync("redis-server", ["--version"]).status !== 0) return false;
  return !asRoot || spawnSync("id", ["-u", "postgres"]).status === 0;
}

export interface PrivatePostgres {
  /** postgres://… of the instance's `postgres` database (trust authentication). */
  url: string;
  port: number;
  /** Stops the server: `fast` ends every session (57P01), `immediate` is a crash. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error("PostgreSQL's binaries are not installed");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-pg-"));
  const data = path.join(dir, "data");
  if (asRoot) {
    const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout);
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout);
    fs.chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => runAsPostgres(path.join(bin, tool), args);
  await run("initdb", ["-D", data, "--auth=trust", "-U", "postgres", "--no-sync", "--no-locale", "-E", "UTF8"]);
  const port = await freePort();
  // A socket folder of its own; fsync off: this data is thrown away (commits still reach the
  // kernel before they are acknowledged, so a crash of PostgreSQL alone loses none).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = () => run("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "-t", "30", "start"]);
  const stop = (mode: "fast" | "immediate" = "fast") => run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "30", "stop"]);
  await start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: async (mode) => {
      await stop(mode);
      running = false;
    },
    start: async () => {
      await start();
      running = true;
    },
    destroy: async () => {
      if (running) await stop("immediate").catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function runAsPostgres(file: string, args: string[]): Promise<void> {
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv as string[], { timeout: 60_000, encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(file)} ${args.join(" ")} failed: ${err.message}\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server (its data is gone: no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const c = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    child = c;
    const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
    for (let i = 0; i < 200; i++) {
      if (await canConnect(port)) return;
      if (c.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    c.kill("SIGKILL");
    await exited;
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once("exit", resolve));
    c.kill("SIGKILL");
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start, destroy: stop };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}
