/** Reads: the cheapest authenticated and unauthenticated GETs, message fetches, user lists. */
import { runLoad } from "../load.js";
import type { Row } from "../row.js";
import { SEND_CHANNEL } from "../seed.js";
import { withServerCpu } from "../server-cpu.js";
import { channelMessages } from "./messages-setup.js";

const ME = "GET /users/me";

export const readRows: Row[] = [
  { name: ME, users: 1000, shape: "GET", run: (env) => runLoad(env.port, { path: "/api/v1/users/me", auth: env.realm.owner }) },
  {
    name: "GET /users/me at half that load",
    users: 1000,
    run: async (env) => {
      // Half the throughput the row above measured (measured now if that row did not run).
      const full = env.results.get(`${ME} @ 1k`)?.requestsPerSecond ?? (await runLoad(env.port, { path: "/api/v1/users/me", auth: env.realm.owner })).requestsPerSecond;
      const rate = Math.max(1, Math.floor(full / 2));
      // The bare server at the same rate, right before: how much of the tail the host and
      // the load generator add by themselves (on 2 cores they share the server's machine).
      const bare = await runLoad(env.barePort, { path: "/bare", rate });
      const result = await runLoad(env.port, { path: "/api/v1/users/me", auth: env.realm.owner, rate });
      return {
        ...result,
        figures: { bareP50: bare.p50, bareP99: bare.p99 },
        note: `fixed rate ${rate} req/s; the bare server at that rate right before: p50 ${bare.p50} ms, p99 ${bare.p99} ms`,
      };
    },
  },
  { name: "GET /server_settings", users: 1000, shape: "GET", run: (env) => runLoad(env.port, { path: "/api/v1/server_settings" }) },
  {
    name: "GET /messages/{id}",
    users: 1000,
    shape: "GET",
    run: async (env) => runLoad(env.port, { path: `/api/v1/messages/${(await channelMessages(env))[0]}`, auth: env.realm.owner }),
  },
  {
    name: "GET /messages (newest 100 in a channel)",
    users: 1000,
    shape: "GET",
    run: async (env) => {
      await channelMessages(env);
      const narrow = encodeURIComponent(JSON.stringify([{ operator: "channel", operand: SEND_CHANNEL }]));
      return runLoad(env.port, { path: `/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow=${narrow}`, auth: env.realm.owner });
    },
  },
  // Bodies of 0.35 / 3.5 MB: autocannon, which parses each body, would measure itself.
  ...[1000, 10_000].map(
    (users): Row => ({
      name: "GET /users",
      users,
      shape: "GET",
      client: "lean",
      run: (env) => withServerCpu(env.pid, (measuring) => runLoad(env.port, { path: "/api/v1/users", auth: env.realm.owner, client: "lean" }, measuring)),
    }),
  ),
];
