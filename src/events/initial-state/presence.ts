/** presences, presence_last_update_id and server_timestamp (event type "presence"). */
import { presenceForPoll } from "../../lib/presence-data.js";
import { PRESENCE_HISTORY_LIMIT_DAYS_DEFAULT } from "../../lib/presence.js";
import { RawJson, setRaw } from "./raw-json.js";
import type { StateFetcher } from "./types.js";

const PRESENCES_MEMBER = '"presences":';
const LAST_ID_MEMBER = ',"presence_last_update_id":';

export const fetchPresenceState: StateFetcher = async (sc, state) => {
  // The full modern answer of a viewer who may see everyone comes serialized from the
  // presence cache (`"presences":{…},"presence_last_update_id":N`), as presence polls get it.
  const data = await presenceForPoll(sc.ctx, sc.realm, sc.user, {
    historyLimitDays: sc.opts.presenceHistoryLimitDays ?? PRESENCE_HISTORY_LIMIT_DAYS_DEFAULT,
    modern: sc.opts.slimPresence,
    nowSeconds: sc.now,
    realmHost: sc.host,
  });
  if (typeof data === "string") {
    const { presences, lastUpdateId } = splitSerialized(data);
    setRaw(state, "presences", new RawJson([presences]));
    state.presence_last_update_id = lastUpdateId;
  } else {
    state.presences = data.presences;
    state.presence_last_update_id = data.presence_last_update_id;
  }
  state.server_timestamp = sc.ctx.now() / 1000;
};

let lastSplit: { source: string; presences: Buffer; lastUpdateId: number } | undefined;

/** The two members of a serialized answer; the bytes are encoded once per cached answer. */
function splitSerialized(json: string): { presences: Buffer; lastUpdateId: number } {
  if (lastSplit?.source === json) return lastSplit;
  const at = json.lastIndexOf(LAST_ID_MEMBER);
  const lastUpdateId = Number(json.slice(at + LAST_ID_MEMBER.length));
  if (!json.startsWith(PRESENCES_MEMBER) || at < 0 || !Number.isInteger(lastUpdateId)) {
    // Not the layout this expects: take it apart the slow way.
    const parsed = JSON.parse(`{${json}}`) as { presences: unknown; presence_last_update_id: number };
    return { presences: Buffer.from(JSON.stringify(parsed.presences)), lastUpdateId: parsed.presence_last_update_id };
  }
  lastSplit = { source: json, presences: Buffer.from(json.slice(PRESENCES_MEMBER.length, at)), lastUpdateId };
  return lastSplit;
}
