/** max_message_id (event type "message"), plus alert words and user statuses. */
import { maxMessageIdForUser } from "../../db/queries/users.js";
import { listAlertWords, listUserStatuses } from "../../db/queries/initial-state.js";
import { RawJson, setRaw } from "./raw-json.js";
import type { StateFetcher } from "./types.js";
import { toApiUserStatus } from "../../api-records/user-status.js";

export const fetchMessageState: StateFetcher = async (sc, state) => {
  // The cache GET /users/me reads too (flushed by any write to the per-user message rows).
  state.max_message_id = await sc.ctx.caches.maxMessageIds.get(sc.realm.id, sc.user.id, () => maxMessageIdForUser(sc.ctx.db, sc.realm.id, sc.user.id));
};

export const fetchAlertWordState: StateFetcher = async (sc, state) => {
  state.alert_words = await listAlertWords(sc.ctx.db, sc.realm.id, sc.user.id);
};

/** user_status: only users with something set, only the keys that are set (as upstream). */
export const fetchUserStatusState: StateFetcher = async (sc, state) => {
  const json = await sc.ctx.caches.registerStatuses.get(sc.realm.id, async () => {
    const out: Record<string, Record<string, string>> = {};
    for (const row of await listUserStatuses(sc.ctx.db, sc.realm.id)) {
      const entry = toApiUserStatus(row);
      if (Object.keys(entry).length > 0) out[String(row.user_id)] = entry;
    }
    return Buffer.from(JSON.stringify(out));
  });
  setRaw(state, "user_status", new RawJson([json]));
};
