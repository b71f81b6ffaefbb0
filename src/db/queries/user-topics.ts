/** The user_topics table: per-user visibility policies of channel topics (case-insensitive). */
import type { Selectable } from "kysely";
import type { UserTopicTable } from "../schema.js";
import type { Queryable } from "../tx.js";

export type UserTopicRow = Selectable<UserTopicTable>;

export const topicKey = (topic: string): string => topic.toLowerCase();

export async function findUserTopic(db: Queryable, realmId: number, userId: number, channelId: number, topic: string): Promise<UserTopicRow | undefined> {
  return db
    .selectFrom("user_topics")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("channel_id", "=", channelId)
    .where("topic_key", "=", topicKey(topic))
    .executeTakeFirst();
}

/** Sets the policy (insert or update; the row takes the topic as last written). */
export async function upsertUserTopic(db: Queryable, row: { realm_id: number; user_id: number; channel_id: number; topic_name: string; visibility_policy: number; last_updated: number }): Promise<void> {
  await db
    .insertInto("user_topics")
    .values({ ...row, topic_key: topicKey(row.topic_name) })
    .onConflict((oc) =>
      oc.columns(["user_id", "channel_id", "topic_key"]).doUpdateSet({ topic_name: row.topic_name, visibility_policy: row.visibility_policy, last_updated: row.last_updated }),
    )
    .execute();
}

export async function deleteUserTopics(db: Queryable, realmId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("user_topics").where("realm_id", "=", realmId).where("id", "in", [...ids]).execute();
}

/** The user's muted topics with their channel names (the legacy muted_topics list), oldest first. */
export async function mutedTopicsWithChannelNames(db: Queryable, realmId: number, userId: number): Promise<Array<[string, string, number]>> {
  const rows = await db
    .selectFrom("user_topics")
    .innerJoin("channels", "channels.id", "user_topics.channel_id")
    .select(["channels.name", "user_topics.topic_name", "user_topics.last_updated"])
    .where("user_topics.realm_id", "=", realmId)
    .where("user_topics.user_id", "=", userId)
    .where("user_topics.visibility_policy", "=", 1)
    .orderBy("user_topics.last_updated")
    .orderBy("user_topics.id")
    .execute();
  return rows.map((r) => [r.name, r.topic_name, Number(r.last_updated)]);
}

/** Every user's policy rows for one topic of a channel. */
export async function userTopicsForTopic(db: Queryable, realmId: number, channelId: number, topic: string): Promise<UserTopicRow[]> {
  return db.selectFrom("user_topics").selectAll().where("realm_id", "=", realmId).where("channel_id", "=", channelId).where("topic_key", "=", topicKey(topic)).execute();
}
