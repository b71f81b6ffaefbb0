/**
 * realm_emoji (event type "realm_emoji"): the realm's custom emoji by id, deactivated
 * ones included, as upstream get_all_custom_emoji_for_realm. One query.
 */
import { listRealmEmoji } from "../../db/queries/initial-state.js";
import type { StateFetcher } from "./types.js";

export const fetchRealmEmojiState: StateFetcher = async (sc, state) => {
  const out: Record<string, unknown> = {};
  for (const e of await listRealmEmoji(sc.ctx.db, sc.realm.id)) {
    out[String(e.id)] = {
      id: String(e.id),
      name: e.name,
      source_url: `/user_avatars/${sc.realm.id}/emoji/images/${encodeURIComponent(e.file_name)}`,
      deactivated: e.deactivated === 1,
      author_id: e.author_id,
    };
  }
  state.realm_emoji = out;
};
