/**
 * POST /users/me/presence as a client polls it: incremental (last_update_id current: only
 * changes since) at 1k, 10k and 100k users, and the full data (last_update_id=-1) at 1k.
 */
import { api } from "../http-client.js";
import { runLoad } from "../load.js";
import type { PhaseEnv, Row } from "../row.js";

const PATH = "/users/me/presence";

async function presenceLoad(env: PhaseEnv, lastUpdateId: "current" | -1) {
  // Warm-up: records the caller's own report once and gives the current update id.
  const warm = await api<{ presence_last_update_id: number }>(env.port, env.realm.owner, "POST", PATH, "status=active&last_update_id=-1");
  const id = lastUpdateId === "current" ? warm.presence_last_update_id : -1;
  return runLoad(env.port, { method: "POST", path: `/api/v1${PATH}`, body: `status=active&last_update_id=${id}`, auth: env.realm.owner });
}

export const presenceRows: Row[] = [
  ...[1000, 10_000, 100_000].map((users): Row => ({ name: "POST /users/me/presence (incremental)", users, shape: "POST", run: (env) => presenceLoad(env, "current") })),
  { name: "POST /users/me/presence (full data)", users: 1000, shape: "POST", run: (env) => presenceLoad(env, -1) },
];
