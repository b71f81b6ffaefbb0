/** Queries behind topic deletion: the topic's messages newest first, and who holds rows in it. */
import type { Queryable } from "../tx.js";
import { lower } from "../dialect.js";

/**
 * Up to `limit` ids of the topic's messages (case-insensitive), newest first. With
 * `onlyForUserId`, only messages that user has a per-user row for.
 */
export async function topicMessageIdsNewestFirst(
  db: Queryable,
  realmId: number,
  recipientId: number,
  topic: string,
  limit: number,
  onlyForUserId?: number,
): Promise<number[]> {
  let q = db
    .selectFrom("messages")
    .select("messages.id")
    .where("messages.realm_id", "=", realmId)
    .where("messages.recipient_id", "=", recipientId)
    .where(lower("messages.topic"), "=", topic.toLowerCase());
  if (onlyForUserId !== undefined) {
    q = q.where((eb) =>
      eb.exists(eb.selectFrom("user_messages").select("user_messages.message_id").whereRef("user_messages.message_id", "=", "messages.id").where("user_messages.user_id", "=", onlyForUserId)),
    );
  }
  const rows = await q.orderBy("messages.id", "desc").limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Users with a per-user row for any message still in the topic. */
export async function topicRowHolderIds(db: Queryable, realmId: number, recipientId: number, topic: string): Promise<Set<number>> {
  const rows = await db
    .selectFrom("user_messages")
    .innerJoin("messages", "messages.id", "user_messages.message_id")
    .select("user_messages.user_id")
    .distinct()
    .where("messages.realm_id", "=", realmId)
    .where("messages.recipient_id", "=", recipientId)
    .where(lower("messages.topic"), "=", topic.toLowerCase())
    .execute();
  return new Set(rows.map((r) => r.user_id));
}
