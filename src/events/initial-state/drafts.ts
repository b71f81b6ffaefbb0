/** drafts (event type "drafts"): newest first, none when synchronization is off. */
import { toApiDraft } from "../../api-records/draft.js";
import { listDrafts } from "../../db/queries/drafts.js";
import { MAX_DRAFTS_IN_REGISTER_RESPONSE } from "./limits.js";
import type { StateFetcher } from "./types.js";

export const fetchDraftState: StateFetcher = async (sc, state) => {
  if (!sc.user.enable_drafts_synchronization) {
    state.drafts = [];
    return;
  }
  const rows = await listDrafts(sc.ctx.db, sc.realm.id, sc.user.id, { newestFirst: true, limit: MAX_DRAFTS_IN_REGISTER_RESPONSE });
  state.drafts = rows.map(toApiDraft);
};
