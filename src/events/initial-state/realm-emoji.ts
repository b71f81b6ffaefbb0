/**
 * realm_emoji (event type "realm_emoji"): the realm's custom emoji by id, deactivated
 * ones included, as upstream get_all_custom_emoji_for_realm. One query.
 */
import { listRealmEmoji } from "../../db/queries/initial-state.js";
import { toApiRealmEmoji } from "../../api-records/realm-emoji.js";
import { RawJson, setRaw } from "./raw-json.js";
import type { StateFetcher } from "./types.js";

export const fetchRealmEmojiState: StateFetcher = async (sc, state) => {
  const json = await sc.ctx.caches.registerEmoji.get(sc.realm.id, async () => Buffer.from(JSON.stringify(toApiRealmEmoji(sc.realm.id, await listRealmEmoji(sc.ctx.db, sc.realm.id)))));
  setRaw(state, "realm_emoji", new RawJson([json]));
};
