/** drafts (event type "drafts"): newest first, none when synchronization is off. */
import { listDrafts } from "../../db/queries/initial-state.js";
import { MAX_DRAFTS_IN_REGISTER_RESPONSE } from "./limits.js";
import type { StateFetcher } from "./types.js";

export const fetchDraftState: StateFetcher = async (sc, state) => {
  if (!sc.user.enable_drafts_synchronization) {
    state.drafts = [];
    return;
  }
  const rows = await listDrafts(sc.ctx.db, sc.realm.id, sc.user.id, MAX_DRAFTS_IN_REGISTER_RESPONSE);
  state.drafts = rows.map((d) => ({
    id: d.id,
    type: d.type,
    to: JSON.parse(d.to_json) as number[],
    topic: d.topic,
    content: d.content,
    timestamp: d.last_edit_time,
  }));
};
