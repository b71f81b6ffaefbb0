/**
 * Scenarios beyond the foundation's: message send/fetch on a 50-member channel, and the
 * presence and event-delivery report. Seeding happens before the server starts; the
 * message to fetch is sent through the API once the server is up.
 */
import type { AppContext } from "../src/context.js";
import { doCreateChannel } from "../src/actions/subscriptions.js";
import { getRealm } from "../src/db/queries/realms.js";
import type { BenchSeed } from "./seed.js";
import type { Scenario } from "./run.js";
import { runPresenceAndEventsBench } from "./presence-and-events.js";

export interface ExtraScenarios {
  /** Built once the server listens (some need ids created through the API). */
  scenarios(port: number): Promise<Scenario[]>;
  reports: Array<(port: number) => Promise<void>>;
}

const CHANNEL = "bench";

export async function extraScenarios(
  ctx: AppContext,
  seed: BenchSeed,
  where: { dataDir: string; databaseUrl?: string },
): Promise<ExtraScenarios> {
  const realm = await getRealm(ctx.db, seed.realmId);
  const owner = await ctx.db.selectFrom("users").selectAll().where("id", "=", seed.owner.id).executeTakeFirstOrThrow();
  const members = await ctx.db
    .selectFrom("users")
    .selectAll()
    .where("id", "in", seed.members.slice(0, 49).map((m) => m.id))
    .execute();
  const channel = await doCreateChannel(ctx, realm, owner, {
    name: CHANNEL,
    description: "",
    inviteOnly: false,
    isWebPublic: false,
    subscribers: [owner, ...members],
  });
  const auth = { email: seed.owner.email, apiKey: seed.owner.apiKey };
  const send = `type=stream&to=${CHANNEL}&topic=load&content=${encodeURIComponent("Hello **everyone**, see https://example.com :smile:")}`;

  return {
    async scenarios(port) {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/messages`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${auth.email}:${auth.apiKey}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: send,
      });
      const { id } = (await res.json()) as { id: number };
      const reactionPaths = await reactionTargets(port, auth, send);
      return [
        { name: "POST /messages (50-member channel)", method: "POST", path: "/api/v1/messages", body: send, auth },
        { name: "GET /messages/{id}", path: `/api/v1/messages/${id}`, auth },
        // Far in the future: the delivery job stays asleep during the run.
        { name: "POST /scheduled_messages (channel)", method: "POST", path: "/api/v1/scheduled_messages", body: `${send.replace(`to=${CHANNEL}`, `to=${channel.id}`)}&scheduled_delivery_timestamp=4102444800`, auth },
        { name: "POST /drafts (one draft)", method: "POST", path: "/api/v1/drafts", body: `drafts=${encodeURIComponent(JSON.stringify([{ type: "", to: [], topic: "", content: "A draft" }]))}`, auth },
        {
          name: "GET /messages (newest 100 in a channel)",
          path: `/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow=${encodeURIComponent(JSON.stringify([{ operator: "channel", operand: CHANNEL }]))}`,
          auth,
        },
        {
          name: "reacting: add then remove (alternating)",
          path: reactionPaths[0],
          sequence: [
            { method: "POST", body: "emoji_name=tada" },
            { method: "DELETE", body: "emoji_name=tada" },
          ],
          pathsPerConnection: reactionPaths,
          auth,
        },
      ];
    },
    reports: [
      async (port) => {
        const users = [seed.owner, ...seed.members].map((u) => ({ id: u.id, email: u.email, apiKey: u.apiKey }));
        const r = await runPresenceAndEventsBench({ port, users, dataDir: where.dataDir, databaseUrl: where.databaseUrl });
        console.log("\n| presence POST | users | req/s | p50 ms | p99 ms | bytes/response |");
        console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
        for (const row of r.presence) {
          for (const [kind, n] of [["incremental (last_update_id)", row.incremental], ["full (last_update_id=-1)", row.full]] as const) {
            console.log(`| ${kind} | ${row.users} | ${n.requestsPerSecond} | ${n.p50} | ${n.p99} | ${n.bytesPerResponse} |`);
          }
        }
        const d = r.delivery;
        console.log(
          `\nSend → delivery on a waiting GET /events, ${d.messages} messages with ${d.idlePolls} idle long-polls open: ` +
            `p50 ${d.p50.toFixed(2)} ms, p99 ${d.p99.toFixed(2)} ms, max ${d.max.toFixed(2)} ms`,
        );
      },
    ],
  };
}

/**
 * Messages to react to, one per connection so concurrent add/remove cycles never collide;
 * three times as many as connections, because autocannon may rebuild a connection's
 * context (and so hand it a fresh path) when it restarts its request pipeline.
 */
async function reactionTargets(port: number, auth: { email: string; apiKey: string }, body: string): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < 3 * Number(process.env.BENCH_CONNECTIONS ?? 10); i++) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/messages`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${auth.email}:${auth.apiKey}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body,
    });
    paths.push(`/api/v1/messages/${((await res.json()) as { id: number }).id}/reactions`);
  }
  return paths;
}
