/** presences, presence_last_update_id and server_timestamp (event type "presence"). */
import { getPresenceData } from "../../lib/presence-data.js";
import { PRESENCE_HISTORY_LIMIT_DAYS_DEFAULT } from "../../lib/presence.js";
import type { StateFetcher } from "./types.js";

export const fetchPresenceState: StateFetcher = async (sc, state) => {
  const data = await getPresenceData(sc.ctx.db, sc.realm, sc.user, {
    historyLimitDays: sc.opts.presenceHistoryLimitDays ?? PRESENCE_HISTORY_LIMIT_DAYS_DEFAULT,
    modern: sc.opts.slimPresence,
    nowSeconds: sc.now,
    realmHost: sc.host,
  });
  state.presences = data.presences;
  state.presence_last_update_id = data.presence_last_update_id;
  state.server_timestamp = sc.ctx.now() / 1000;
};
