/** drafts (event type "drafts"): newest first, none when synchronization is off. */
import { toApiDraft } from "../../api-records/draft.js";
import { newestDraftsQuery } from "../../db/queries/drafts.js";
import { MAX_DRAFTS_IN_REGISTER_RESPONSE } from "./limits.js";
import type { StateFetcher } from "./types.js";

const newestDrafts = newestDraftsQuery(MAX_DRAFTS_IN_REGISTER_RESPONSE);

export const fetchDraftState: StateFetcher = async (sc, state) => {
  if (!sc.user.enable_drafts_synchronization) {
    state.drafts = [];
    return;
  }
  const rows = await newestDrafts(sc.ctx.db, sc.realm.id, sc.user.id);
  state.drafts = rows.map(toApiDraft);
};
