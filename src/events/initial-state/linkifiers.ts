/** realm_linkifiers (event type "realm_linkifiers"); clients without the url_template capability get none. */
import { listLinkifiers } from "../../db/queries/initial-state.js";
import type { StateFetcher } from "./types.js";

export const fetchLinkifierState: StateFetcher = async (sc, state) => {
  if (sc.opts.clientCapabilities.linkifier_url_template !== true) {
    state.realm_linkifiers = [];
    return;
  }
  const rows = await listLinkifiers(sc.ctx.db, sc.realm.id);
  state.realm_linkifiers = rows.map((r) => ({ pattern: r.pattern, url_template: r.url_template, id: r.id }));
};
