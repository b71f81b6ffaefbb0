/**
 * A cluster as operators run it: several `parley serve` processes on one PostgreSQL
 * database and one Redis (a key prefix of its own), behind HAProxy balancing round-robin
 * with no session affinity. Needs TEST_DATABASE_URL, TEST_REDIS_URL and haproxy on PATH.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startHaproxy } from "../../bench/haproxy.js";
import { CLI, ROOT, cliEnv, ensureBuilt, runCli } from "../cli/run-cli.js";
import { createTestDb, type TestDb } from "./db.js";

export const clusterConfigured = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

export interface Node {
  /** The node id (the prefix of its queue ids). */
  id: string;
  port: number;
  url: string;
  process: ChildProcess;
  log: () => string;
}

export interface Cluster {
  nodes: Node[];
  /** The proxy's URL: successive requests land on successive nodes. */
  proxyUrl: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  owner: { email: string; api_key: string; user_id: number };
  stop(): Promise<void>;
  /** Starts one more node (after a kill). */
  startNode(): Promise<Node>;
}

export interface ClusterServices {
  /** A database of the caller's (not dropped by stop()); a new one on TEST_DATABASE_URL otherwise. */
  databaseUrl?: string;
  /** Redis; TEST_REDIS_URL otherwise. */
  redisUrl?: string;
}

export async function startCluster(nodeCount: number, extraEnv: Record<string, string> = {}, services: ClusterServices = {}): Promise<Cluster> {
  await ensureBuilt();
  const haproxy = spawnSync("haproxy", ["-v"], { encoding: "utf8" });
  if (haproxy.status !== 0) throw new Error("haproxy is not installed (apt-get install haproxy); the cluster tests need a real proxy");
  let testDb: TestDb | undefined;
  if (services.databaseUrl === undefined) {
    testDb = await createTestDb();
    await testDb.db.destroy();
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-cluster-"));
  const env = cliEnv({
    DATABASE_URL: services.databaseUrl ?? testDb!.url,
    REDIS_URL: services.redisUrl ?? process.env.TEST_REDIS_URL,
    PARLEY_REDIS_PREFIX: `parley-test-${crypto.randomBytes(4).toString("hex")}:`,
    PARLEY_DATA_DIR: dataDir,
    PARLEY_EXTERNAL_HOST: "chat.test",
    ...extraEnv,
  });
  const created = await runCli(["create-realm", "--name", "Cluster Org", "--owner-email", "owner@chat.test", "--owner-name", "Owner", "--json"], env);
  if (created.code !== 0) throw new Error(`create-realm failed: ${created.stderr}`);
  const owner = JSON.parse(created.stdout) as Cluster["owner"];
  const nodes: Node[] = [];
  const startNode = async () => {
    const node = await startNodeProcess(env);
    nodes.push(node);
    return node;
  };
  for (let i = 0; i < nodeCount; i++) await startNode();
  const proxy = await startHaproxy(nodes.map((n) => n.port), dataDir, { closeServerConnections: true });
  return {
    nodes,
    proxyUrl: proxy.url,
    env,
    dataDir,
    owner,
    startNode,
    stop: async () => {
      proxy.process.kill("SIGTERM");
      await Promise.all(nodes.map((n) => stopProcess(n.process)));
      if (testDb) await dropDatabase(testDb);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function dropDatabase(testDb: TestDb): Promise<void> {
  await testDb.drop().catch(() => undefined);
}

function startNodeProcess(env: NodeJS.ProcessEnv): Promise<Node> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0"], { env, cwd: ROOT });
  let log = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (c: string) => (log += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start: ${log}`)), 60_000);
    child.once("exit", (code) => reject(new Error(`node exited with ${code}: ${log}`)));
    child.stdout!.on("data", (chunk: string) => {
      log += chunk;
      const listening = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      // Joined: its queues can be found from the other nodes.
      const joined = /Cluster: node (\w+) joined/.exec(log);
      if (listening && joined) {
        clearTimeout(timer);
        const port = Number(listening[1]);
        resolve({ id: joined[1], port, url: `http://127.0.0.1:${port}`, process: child, log: () => log });
      }
    });
  });
}

/** Sends `signal` and waits for the exit; a process still there after `killAfterMs` is killed. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", killAfterMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  await exited;
  clearTimeout(timer);
}
