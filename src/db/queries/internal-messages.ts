/** Queries behind the notification bot's notices (message moves, resolved topics). */
import type { Queryable } from "../tx.js";

/** user_topics visibility_policy of a followed topic. */
const FOLLOWED = 3;

/** Users following the topic (topics compare case-insensitively, by topic_key). */
export async function topicFollowerIds(db: Queryable, realmId: number, channelId: number, topic: string): Promise<Set<number>> {
  const rows = await db
    .selectFrom("user_topics")
    .select("user_id")
    .where("realm_id", "=", realmId)
    .where("channel_id", "=", channelId)
    .where("topic_key", "=", topic.toLowerCase())
    .where("visibility_policy", "=", FOLLOWED)
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

/** Which of these messages the user has a personal row for. */
export async function messageIdsWithRowFor(db: Queryable, realmId: number, userId: number, messageIds: readonly number[]): Promise<Set<number>> {
  if (messageIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("user_messages")
    .select("message_id")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("message_id", "in", [...messageIds])
    .execute();
  return new Set(rows.map((r) => r.message_id));
}
