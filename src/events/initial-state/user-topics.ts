/** user_topics (event type "user_topic") and the legacy muted_topics list. */
import { findChannelsByIds } from "../../db/queries/channels.js";
import { listUserTopics } from "../../db/queries/initial-state.js";
import type { StateContext, StateFetcher } from "./types.js";
import { loadOnce } from "./shared.js";

/** The caller's topic policies (also read by unread state). */
export const userTopicsOf = (sc: StateContext) => loadOnce(sc, "user_topics", () => listUserTopics(sc.ctx.db, sc.realm.id, sc.user.id));

export const fetchUserTopicState: StateFetcher = async (sc, state) => {
  const rows = await userTopicsOf(sc);
  state.user_topics = rows.map((r) => ({
    stream_id: r.channel_id,
    topic_name: r.topic_name,
    last_updated: r.last_updated,
    visibility_policy: r.visibility_policy,
  }));
};

export const fetchMutedTopicState: StateFetcher = async (sc, state) => {
  const rows = (await userTopicsOf(sc)).filter((r) => r.visibility_policy === 1);
  const names = new Map((await findChannelsByIds(sc.ctx.db, sc.realm.id, [...new Set(rows.map((r) => r.channel_id))])).map((c) => [c.id, c.name]));
  state.muted_topics = rows.filter((r) => names.has(r.channel_id)).map((r) => [names.get(r.channel_id), r.topic_name, r.last_updated]);
};
