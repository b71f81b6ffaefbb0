/**
 * realm_emoji (event type "realm_emoji"): the realm's custom emoji by id, deactivated
 * ones included, as upstream get_all_custom_emoji_for_realm. One query.
 */
import { listRealmEmoji } from "../../db/queries/initial-state.js";
import { toApiRealmEmoji } from "../../api-records/realm-emoji.js";
import type { StateFetcher } from "./types.js";

export const fetchRealmEmojiState: StateFetcher = async (sc, state) => {
  state.realm_emoji = toApiRealmEmoji(sc.realm.id, await listRealmEmoji(sc.ctx.db, sc.realm.id));
};
