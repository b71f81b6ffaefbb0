/** The topic list of a channel (upstream get_topic_history_for_stream): one grouped query. */
import type { Queryable } from "../tx.js";

export interface TopicRow {
  topic: string;
  max_id: number;
}

/**
 * Each distinct topic spelling of the channel with its newest message id. With
 * `viewerId`, only messages that user has a row for (channels whose history is
 * protected); without, every message (shared history, spectators).
 */
export async function channelTopicRows(db: Queryable, realmId: number, channelId: number, viewerId?: number): Promise<TopicRow[]> {
  let q = db
    .selectFrom("messages")
    .select((eb) => ["messages.topic as topic", eb.fn.max("messages.id").as("max_id")])
    .where("messages.realm_id", "=", realmId)
    .where("messages.channel_id", "=", channelId);
  if (viewerId !== undefined) {
    q = q.innerJoin("user_messages", "user_messages.message_id", "messages.id").where("user_messages.user_id", "=", viewerId);
  }
  const rows = await q.groupBy("messages.topic").execute();
  return rows.map((r) => ({ topic: r.topic, max_id: Number(r.max_id) }));
}
