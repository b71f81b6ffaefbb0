/**
 * Instructions per fan-out, a measure that does not move with the machine's load (the
 * fan-out rows' wall times moved fivefold on a shared machine): Parley (`parley serve`,
 * default configuration, rate limits off) runs under callgrind on a bench organization
 * seeded in bulk; every user has a queue with a GET /events long-poll waiting (as in the
 * fan-out rows, bench/long-polls.ts), and the server's user-space instructions are counted
 * from the send of a message to the channel everyone follows until every poll has returned
 * it (the polls poll again after the count). After warm-up sends, each round is one send;
 * the figure is the median round, also per waiting poll. Kernel work (each answer's socket
 * write, which dominates a fan-out's CPU now) is not counted.
 *
 *   npm run build && node dist/bench/fanout-instructions.js [--users 1000] [--rounds 5] [--warmup 5] [--keep]
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/server.js";
import { countInstructions, startCounted, stop } from "./callgrind.js";
import { api, form } from "./http-client.js";
import { PollPool } from "./long-polls.js";
import { createBenchRealm, EVERYONE_CHANNEL } from "./seed.js";

const here = path.dirname(fileURLToPath(import.meta.url));

function option(argv: string[], flag: string, fallback: number): number {
  const i = argv.indexOf(flag);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const users = option(argv, "--users", 1000);
  const rounds = option(argv, "--rounds", 5);
  const warmup = option(argv, "--warmup", 5);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-fanout-instructions-"));
  const ctx = await createContext({ ...loadConfig({}), dataDir: dir, databaseUrl: undefined });
  const realm = await createBenchRealm(ctx, users);
  await ctx.db.destroy();
  const env: NodeJS.ProcessEnv = { ...process.env, PARLEY_DATA_DIR: dir, PARLEY_RATE_LIMIT_PER_MINUTE: "0" };
  delete env.LOG_LEVEL;
  delete env.DATABASE_URL;
  const server = await startCounted(path.join(here, "..", "src", "cli.js"), ["serve"], env, dir, "/api/v1/server_settings");
  const counts: number[] = [];
  try {
    const pool = await PollPool.open(server.port, [realm.owner, ...realm.members]);
    const fanout = (beforeRepolls?: () => Promise<unknown>) => {
      const token = `fanout${randomBytes(6).toString("hex")}`;
      const body = form({ type: "stream", to: EVERYONE_CHANNEL, topic: "fan-out", content: `Hello all ${token}` });
      return pool.timeUntilAllReceive(token, () => api(server.port, realm.owner, "POST", "/messages", body), 600_000, beforeRepolls);
    };
    for (let i = 0; i < warmup; i++) await fanout();
    const settle = () => new Promise((r) => setTimeout(r, 2000));
    await settle();
    for (let i = 0; i < rounds; i++) {
      // Counted from the zero (before the send) until every poll has its answer; the polls
      // poll again after the dump.
      let received!: () => void;
      let dumped!: () => void;
      const allReceived = new Promise<void>((r) => (received = r));
      const afterDump = new Promise<void>((r) => (dumped = r));
      let round: Promise<number> | undefined;
      const count = await countInstructions(server, `fanout-${i}`, () => {
        round = fanout(async () => {
          received();
          await afterDump;
        });
        return allReceived;
      });
      counts.push(count);
      dumped();
      await round;
      await settle();
    }
    pool.close();
  } finally {
    await stop(server);
  }
  const sorted = [...counts].sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1];
  const m = (n: number) => `${(n / 1e6).toFixed(1)}M`;
  process.stdout.write(`one message to ${users} waiting polls: ${m(median)} instructions (median of ${rounds}: ${counts.map(m).join(" ")}), ${Math.round(median / users).toLocaleString("en")} per poll\n`);
  if (argv.includes("--keep")) process.stdout.write(`callgrind dumps and server logs kept in ${dir}\n`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

await main();
