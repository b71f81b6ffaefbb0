/**
 * Two builds compared alternately in the same minutes: each runs as `parley serve` on its
 * own copy of one seeded 1k-user organization, and rounds of sends to the 50-member channel
 * (the send row's request) go to one server, then the other. Two measures:
 * - by default, a closed loop over the lean client: sends/s and the server main thread's CPU
 *   per send, which moves less with the shared machine's load than sends/s (the COMMIT's
 *   fsync wait is not CPU time), but still by ±20 % while other work runs;
 * - with `--instructions N`, both servers run under callgrind and each round sends N
 *   messages one after another (each its own COMMIT, as at a low even rate): user-space
 *   instructions per send, which do not move with the load (see callgrind.ts).
 *
 *   npm run build && node dist/bench/ab-cpu.js --old /work/main/dist/src/cli.js
 *     [--new dist/src/cli.js] [--rounds 5] [--seconds 4] [--connections 20]
 *     [--instructions 200 [--warmup 1000]] [--path /api/v1/messages] [--body <form>] [--keep]
 *     [--method GET] (a GET sends no body; `{message}` in the path is a channel message sent
 *     by the owner before the copies are made, for GET /api/v1/messages/{message})
 *     [--register]
 *
 * `--keep` leaves the data directories (with the callgrind dumps, for callgrind_annotate).
 * `--register` measures the register row's request instead (bench/rows/register.ts): the
 * organization gets that row's history and the requests take turns among its callers.
 *
 * Both builds must share the schema (the organization is seeded once, by this build).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/server.js";
import { countInstructions, startCounted, stop, type Counted } from "./callgrind.js";
import { closedLoopLoad } from "./closed-loop.js";
import { api, type BenchUser } from "./http-client.js";
import { mainThreadCpuMs, PARLEY_BENCH_ENV, startParley, type Server } from "./processes.js";
import type { RawRequest } from "./raw-http.js";
import { SEND_BODY } from "./rows/messages-setup.js";
import { seedRegisterHistory } from "./register-history.js";
import { BODY as REGISTER_BODY } from "./rows/register.js";
import { createBenchRealm, registerCallers, SEND_CHANNEL } from "./seed.js";
import { doSendMessage } from "../src/actions/messages.js";

const here = path.dirname(fileURLToPath(import.meta.url));

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One build's server and how a round is measured on it: [figure per request, label]. */
interface Contender {
  name: string;
  /** Runs the code paths until the JIT has settled (not measured). */
  warm(): Promise<void>;
  measure(): Promise<[number, string]>;
  stop(): Promise<void>;
}

async function closedLoopContender(name: string, cli: string, dir: string, request: RawRequest, users: BenchUser[]): Promise<Contender> {
  const server: Server = await startParley(dir, undefined, undefined, cli);
  const seconds = Number(option("seconds", "4"));
  const connections = Number(option("connections", "20"));
  const contender: Contender = {
    name,
    warm: async () => void (await contender.measure()),
    stop: () => server.stop(),
    measure: async () => {
      const before = mainThreadCpuMs(server.pid);
      const run = await closedLoopLoad(server.port, { ...request, users, seconds, connections });
      if (run.failures > 0) throw new Error(`${name}: ${run.failures} failed requests`);
      const cpuUs = ((mainThreadCpuMs(server.pid) - before) * 1000) / run.latencies.length;
      return [cpuUs, `${(run.latencies.length / run.seconds).toFixed(0)} req/s, ${cpuUs.toFixed(0)} µs of server CPU per request`];
    },
  };
  return contender;
}

async function callgrindContender(name: string, cli: string, dir: string, request: RawRequest, users: BenchUser[], count: number): Promise<Contender> {
  const env: NodeJS.ProcessEnv = { ...process.env, PARLEY_DATA_DIR: dir, ...PARLEY_BENCH_ENV };
  delete env.LOG_LEVEL;
  delete env.DATABASE_URL;
  const server: Counted = await startCounted(cli, ["serve"], env, dir, "/api/v1/server_settings");
  const apiPath = request.path.replace(/^\/api\/v1/, "");
  const sends = async (n: number) => {
    for (let i = 0; i < n; i++) await api(server.port, users[i % users.length], request.method, apiPath, request.body);
  };
  return {
    name,
    warm: () => sends(Number(option("warmup", "1000"))),
    stop: () => stop(server),
    measure: async () => {
      const perRequest = (await countInstructions(server, name, () => sends(count))) / count;
      return [perRequest, `${(perRequest / 1000).toFixed(0)}k instructions per request`];
    },
  };
}

async function main(): Promise<void> {
  if (!option("old", "")) throw new Error("--old <other build's dist/src/cli.js> is required");
  const builds = { old: path.resolve(option("old", "")), new: path.resolve(option("new", path.join(here, "..", "src", "cli.js"))) };
  const rounds = Number(option("rounds", "5"));
  const instructions = Number(option("instructions", "0"));
  const registers = process.argv.includes("--register");
  const method = option("method", "POST");
  const request: RawRequest = registers
    ? { method: "POST", path: "/api/v1/register", body: REGISTER_BODY }
    : { method, path: option("path", "/api/v1/messages"), body: method === "GET" ? undefined : option("body", SEND_BODY) };

  const seeded = fs.mkdtempSync(path.join(os.tmpdir(), "parley-ab-"));
  const ctx = await createContext({ ...loadConfig({}), dataDir: seeded, databaseUrl: undefined });
  const realm = await createBenchRealm(ctx, 1000);
  if (request.path.includes("{message}")) {
    const owner = await ctx.db.selectFrom("users").selectAll().where("id", "=", realm.owner.id).executeTakeFirstOrThrow();
    const realmRow = await ctx.db.selectFrom("realms").selectAll().where("id", "=", owner.realm_id).executeTakeFirstOrThrow();
    const id = await doSendMessage(ctx, realmRow, owner, { target: { kind: "channel", channel: { name: SEND_CHANNEL }, topic: "load" }, content: "Hello **everyone**, see https://example.com :smile:", clientName: "bench" });
    request.path = request.path.replace("{message}", String(id));
  }
  if (registers) await seedRegisterHistory(ctx.db, realm);
  await ctx.db.destroy();
  const users = registers ? registerCallers(realm) : [realm.owner];
  const contenders: Contender[] = [];
  const figures = new Map<string, number[]>();
  try {
    for (const [name, cli] of Object.entries(builds)) {
      const dir = `${seeded}-${name}`;
      fs.cpSync(seeded, dir, { recursive: true });
      contenders.push(instructions > 0 ? await callgrindContender(name, cli, dir, request, users, instructions) : await closedLoopContender(name, cli, dir, request, users));
      figures.set(name, []);
    }
    for (const c of contenders) await c.warm();
    // The order flips every round (ABBA): neither build always runs right after the other.
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 0 ? [...contenders].reverse() : contenders;
      for (const c of order) {
        const [figure, label] = await c.measure();
        figures.get(c.name)!.push(figure);
        console.log(`round ${round} ${c.name}: ${label}`);
      }
    }
    for (const [name, f] of figures) console.log(`${name}: median of ${rounds} rounds ${median(f).toFixed(0)} per request (${f.map((x) => x.toFixed(0)).join(", ")})`);
  } finally {
    for (const c of contenders) await c.stop();
    if (process.argv.includes("--keep")) console.log(`data directories kept: ${seeded}-*`);
    else for (const suffix of ["", ...Object.keys(builds).map((n) => `-${n}`)]) fs.rmSync(`${seeded}${suffix}`, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
