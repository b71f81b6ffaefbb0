/** navigation_views (event type "navigation_view"): the user's configured views. */
import { listNavigationViews } from "../../db/queries/navigation-views.js";
import { toApiNavigationView } from "../../lib/navigation-views.js";
import type { StateFetcher } from "./types.js";

export const fetchNavigationViewState: StateFetcher = async (sc, state) => {
  state.navigation_views = (await listNavigationViews(sc.ctx.db, sc.realm.id, sc.user.id)).map(toApiNavigationView);
};
