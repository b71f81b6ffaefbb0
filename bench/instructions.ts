/**
 * Instructions per request, a measure that does not move with the machine's load: the
 * server runs under `valgrind --tool=callgrind`, a fixed number of requests of one kind go
 * through keep-alive sockets (after a warm-up, so the JIT has settled), and the user-space
 * instructions the server process spent on them (all its threads but V8's optimizing
 * compiler, see optimizingCompiler) are divided by their number. The bare Fastify server
 * (bare-server.ts) answers the same GET shape, so each kind's ratio to it is comparable
 * across runs and machines. Kernel work (the socket write and read) is not counted; each
 * kind's figure is the median of several rounds, as a round may hold a full garbage
 * collection.
 *
 *   npm run build && node dist/bench/instructions.js [--requests 3000] [--warmup 2000]
 *     [--connections 1] [--rounds 5] [--only users/me,server_settings] [--keep]
 *     [--cli <another build's dist/src/cli.js>]
 *
 * One connection by default: each request is then a turn of the server's event loop of its
 * own, so the count does not depend on how many requests a turn happens to batch (which
 * moves with the load generator's speed, i.e. with the machine's load); costs paid once per
 * turn are counted in full for every request, as on a server that is not saturated.
 *
 * Parley runs as `parley serve` with its default configuration (access log on, to a file),
 * rate limits off, on a fresh SQLite organization made by `create-realm`.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { api, basicAuth, form, type BenchUser } from "./http-client.js";
import { countInstructions, startCounted, stop, type Counted } from "./callgrind.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

interface Kind {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: string;
  auth: boolean;
}

interface Options {
  requests: number;
  warmup: number;
  connections: number;
  only: string[] | undefined;
  rounds: number;
  /** Keep the callgrind dumps (for callgrind_annotate) and the server logs. */
  keep: boolean;
  /** The Parley build measured (another worktree's, to compare builds under the same bench). */
  cli: string | undefined;
}

function options(argv: string[]): Options {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    requests: Number(value("--requests") ?? 3000),
    warmup: Number(value("--warmup") ?? 2000),
    connections: Number(value("--connections") ?? 1),
    only: value("--only")?.split(","),
    rounds: Number(value("--rounds") ?? 5),
    keep: argv.includes("--keep"),
    cli: value("--cli"),
  };
}

/** Instructions the server spent on `requests` requests of one kind (the server is warm). */
function measure(server: Counted, kind: Kind, user: BenchUser | undefined, opts: Options): Promise<number> {
  return countInstructions(server, kind.name, () => drive(server.port, kind, user, opts.requests, opts.connections));
}

/** `total` requests over `connections` keep-alive sockets, each sending its next on the previous answer. */
async function drive(port: number, kind: Kind, user: BenchUser | undefined, total: number, connections: number): Promise<void> {
  const lines = [`${kind.method} ${kind.path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: keep-alive", "User-Agent: instructions"];
  if (user) lines.push(`Authorization: ${basicAuth(user)}`);
  if (kind.body !== undefined) lines.push("Content-Type: application/x-www-form-urlencoded", `Content-Length: ${Buffer.byteLength(kind.body)}`);
  const bytes = Buffer.from(`${lines.join("\r\n")}\r\n\r\n${kind.body ?? ""}`);
  let sent = 0;
  let answered = 0;
  await new Promise<void>((resolve, reject) => {
    const open = () => {
      const socket = net.connect({ host: "127.0.0.1", port });
      socket.setNoDelay(true);
      let pending: Buffer = Buffer.alloc(0);
      const next = () => {
        if (sent < total) {
          sent++;
          socket.write(bytes);
        } else socket.end();
      };
      socket.on("connect", next);
      socket.on("error", reject);
      socket.on("data", (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        for (;;) {
          const headerEnd = pending.indexOf("\r\n\r\n");
          if (headerEnd < 0) return;
          const head = pending.subarray(0, headerEnd).toString("latin1");
          const end = headerEnd + 4 + Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
          if (pending.length < end) return;
          const status = Number(head.slice(9, 12));
          if (status !== 200) return reject(new Error(`${kind.name}: HTTP ${status} ${pending.subarray(headerEnd + 4, end).toString()}`));
          pending = pending.subarray(end);
          if (++answered === total) resolve();
          next();
        }
      });
    };
    for (let i = 0; i < Math.min(connections, total); i++) open();
  });
}

interface Result {
  name: string;
  perRequest: number;
  rounds: number[];
}

/**
 * Every kind is warmed up before any is measured (they share most of their code, and the
 * JIT's background compilations would otherwise land in whichever kind comes first); each
 * kind's figure is the median of `rounds` measurements (a round may or may not hold a
 * full garbage collection).
 */
async function measureAll(server: Counted, kinds: Kind[], user: BenchUser | undefined, opts: Options): Promise<Result[]> {
  for (const kind of kinds) await drive(server.port, kind, kind.auth ? user : undefined, opts.warmup, opts.connections);
  // A settling pass, not counted: the optimizing compiler's jobs queued during the warm-up
  // run on a background thread and would otherwise land in the first round (doubling it).
  for (const kind of kinds) await measure(server, kind, kind.auth ? user : undefined, opts);
  const rounds = new Map<string, number[]>(kinds.map((k) => [k.name, []]));
  for (let round = 0; round < opts.rounds; round++) {
    for (const kind of kinds) rounds.get(kind.name)!.push((await measure(server, kind, kind.auth ? user : undefined, opts)) / opts.requests);
  }
  return kinds.map((k) => ({ name: k.name, perRequest: median(rounds.get(k.name)!), rounds: rounds.get(k.name)! }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-instructions-"));
  const env: NodeJS.ProcessEnv = { ...process.env, PARLEY_DATA_DIR: dir, PARLEY_RATE_LIMIT_PER_MINUTE: "0" };
  delete env.LOG_LEVEL;
  delete env.DATABASE_URL;
  const cli = opts.cli === undefined ? path.join(here, "..", "src", "cli.js") : path.resolve(opts.cli);
  const created = await run(process.execPath, [cli, "create-realm", "--name", "Bench", "--owner-email", "owner@bench.test", "--owner-name", "Owner", "--password", "bench-password-1", "--json"], { env });
  const realm = JSON.parse(created.stdout.trim().split("\n").pop()!) as { user_id: number; email: string; api_key: string };
  const owner: BenchUser = { id: realm.user_id, email: realm.email, apiKey: realm.api_key };

  const bareKind: Kind = { name: "bare GET", method: "GET", path: "/bare", auth: false };
  const wanted = (name: string) => !opts.only || opts.only.some((o) => name.includes(o));
  const results: Result[] = [];
  const bare = await startCounted(path.join(here, "bare-server.js"), [], env, dir, "/bare");
  try {
    results.push(...(await measureAll(bare, [bareKind], undefined, opts)));
  } finally {
    await stop(bare);
  }

  const parley = await startCounted(cli, ["serve"], env, dir, "/api/v1/server_settings");
  try {
    const sent = await api<{ id: number }>(parley.port, owner, "POST", "/messages", form({ type: "private", to: JSON.stringify([owner.id]), content: "Hello" }));
    // The load bench's message: a channel message with Markdown, a link and an emoji.
    const inChannel = await api<{ id: number }>(parley.port, owner, "POST", "/messages", form({ type: "stream", to: "general", topic: "load", content: "Hello **everyone**, see https://example.com :smile:" }));
    const current = await api<{ presence_last_update_id: number }>(parley.port, owner, "POST", "/users/me/presence", form({ status: "active", last_update_id: -1 }));
    const kinds: Kind[] = [
      { name: "GET /server_settings", method: "GET", path: "/api/v1/server_settings", auth: false },
      { name: "GET /users/me", method: "GET", path: "/api/v1/users/me", auth: true },
      { name: "GET /messages/{id}", method: "GET", path: `/api/v1/messages/${sent.id}`, auth: true },
      { name: "GET /messages/{id} (channel)", method: "GET", path: `/api/v1/messages/${inChannel.id}`, auth: true },
      { name: "POST /users/me/presence", method: "POST", path: "/api/v1/users/me/presence", body: form({ status: "active", last_update_id: 0 }), auth: true },
      // As a client polls (and the load bench's incremental rows): changes since the id it was last given.
      { name: "POST /users/me/presence (incremental)", method: "POST", path: "/api/v1/users/me/presence", body: form({ status: "active", last_update_id: current.presence_last_update_id }), auth: true },
    ];
    results.push(...(await measureAll(parley, kinds.filter((k) => wanted(k.name)), owner, opts)));
  } finally {
    await stop(parley);
  }

  const base = results[0].perRequest;
  process.stdout.write(`${opts.requests} requests per kind after ${opts.warmup} of warm-up each, ${opts.connections} connections, median of ${opts.rounds} round(s)\n`);
  const thousands = (n: number) => `${Math.round(n / 1000)}k`;
  process.stdout.write(`| request | instructions per request | × bare | rounds |\n| --- | ---: | ---: | --- |\n`);
  for (const r of results) {
    process.stdout.write(`| ${r.name} | ${Math.round(r.perRequest).toLocaleString("en")} | ${(r.perRequest / base).toFixed(2)} | ${r.rounds.map(thousands).join(" ")} |\n`);
  }
  if (opts.keep) process.stdout.write(`callgrind dumps and server logs kept in ${dir}\n`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

await main();
