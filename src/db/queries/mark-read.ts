/** The unread rows behind the mark-as-read endpoints. */
import { sql } from "kysely";
import { FLAG_BITS } from "../../lib/message-flags.js";
import { lower } from "../dialect.js";
import type { Queryable } from "../tx.js";

const UNREAD = sql<boolean>`(user_messages.flags & ${sql.lit(FLAG_BITS.read)}) = 0`;

/** Up to `limit` of the user's unread message ids, oldest first. */
export async function unreadIdsBatch(db: Queryable, realmId: number, userId: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom("user_messages")
    .select("message_id")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where(UNREAD)
    .orderBy("message_id")
    .limit(limit)
    .execute();
  return rows.map((r) => r.message_id);
}

/** The user's rows for messages of a channel, optionally of one topic (case-insensitive). */
function channelRows(db: Queryable, realmId: number, userId: number, channelId: number, topic?: string) {
  const q = db
    .selectFrom("user_messages")
    .innerJoin("messages", "messages.id", "user_messages.message_id")
    .select("user_messages.message_id as message_id")
    .where("user_messages.realm_id", "=", realmId)
    .where("user_messages.user_id", "=", userId)
    .where("messages.channel_id", "=", channelId);
  return topic === undefined ? q : q.where(lower("messages.topic"), "=", topic.toLowerCase());
}

/** The user's unread message ids in a channel, or in one of its topics. */
export async function unreadIdsInChannel(db: Queryable, realmId: number, userId: number, channelId: number, topic?: string): Promise<number[]> {
  const rows = await channelRows(db, realmId, userId, channelId, topic).where(UNREAD).orderBy("user_messages.message_id").execute();
  return rows.map((r) => r.message_id);
}

/** Upstream user_message_exists_for_topic: the user has a row for some message of the topic. */
export async function userHasMessageInTopic(db: Queryable, realmId: number, userId: number, channelId: number, topic: string): Promise<boolean> {
  return (await channelRows(db, realmId, userId, channelId, topic).limit(1).executeTakeFirst()) !== undefined;
}
