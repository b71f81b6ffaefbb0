/**
 * Reads behind /register's unread_msgs and recent_private_conversations: one query per
 * table family, bounded by a limit, whatever the number of messages.
 */
import { sql } from "kysely";
import { FLAG_BITS } from "../../lib/message-flags.js";
import type { Queryable } from "../tx.js";
import { RECIPIENT_CHANNEL, RECIPIENT_DM_GROUP, RECIPIENT_PERSONAL } from "./messages.js";

export interface UnreadRow {
  message_id: number;
  sender_id: number;
  recipient_id: number;
  topic: string;
  flags: number;
  recipient_type: number;
  recipient_type_id: number;
  /** Direct-message groups: their sorted, comma-joined member ids. */
  member_key: string | null;
}

/**
 * The user's newest unread messages (no read bit), at most `limit`, in ascending id order.
 */
export async function unreadMessageRows(db: Queryable, realmId: number, userId: number, limit: number): Promise<UnreadRow[]> {
  const rows = await db
    .selectFrom("user_messages")
    .innerJoin("messages", "messages.id", "user_messages.message_id")
    .innerJoin("recipients", "recipients.id", "messages.recipient_id")
    .leftJoin("direct_message_groups", (j) => j.onRef("direct_message_groups.id", "=", "recipients.type_id").on("recipients.type", "=", RECIPIENT_DM_GROUP))
    .select([
      "user_messages.message_id as message_id",
      "messages.sender_id as sender_id",
      "messages.recipient_id as recipient_id",
      "messages.topic as topic",
      "user_messages.flags as flags",
      "recipients.type as recipient_type",
      "recipients.type_id as recipient_type_id",
      "direct_message_groups.member_key as member_key",
    ])
    .where("user_messages.realm_id", "=", realmId)
    .where("user_messages.user_id", "=", userId)
    .where(sql<boolean>`(user_messages.flags & ${sql.lit(FLAG_BITS.read)}) = 0`)
    // Newest first, so the cap keeps the latest unreads.
    .orderBy("user_messages.message_id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

/** Ids of the channels the user is subscribed to and has muted. */
export async function mutedChannelIds(db: Queryable, realmId: number, userId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom("subscriptions")
    .innerJoin("recipients", "recipients.id", "subscriptions.recipient_id")
    .select("recipients.type_id as channel_id")
    .where("subscriptions.realm_id", "=", realmId)
    .where("subscriptions.user_id", "=", userId)
    .where("subscriptions.active", "=", 1)
    .where("subscriptions.is_muted", "=", 1)
    .where("recipients.type", "=", RECIPIENT_CHANNEL)
    .execute();
  return new Set(rows.map((r) => r.channel_id));
}

export interface DirectMessageRow {
  id: number;
  sender_id: number;
  recipient_type: number;
  recipient_type_id: number;
  /** Direct-message groups: their sorted, comma-joined member ids. */
  member_key: string | null;
}

/** The user's newest direct messages (personal and group), at most `limit`, newest first. */
export async function recentDirectMessageRows(db: Queryable, realmId: number, userId: number, limit: number): Promise<DirectMessageRow[]> {
  return db
    .selectFrom("user_messages")
    .innerJoin("messages", "messages.id", "user_messages.message_id")
    .innerJoin("recipients", "recipients.id", "messages.recipient_id")
    .leftJoin("direct_message_groups", (j) => j.onRef("direct_message_groups.id", "=", "recipients.type_id").on("recipients.type", "=", RECIPIENT_DM_GROUP))
    .select([
      "messages.id as id",
      "messages.sender_id as sender_id",
      "recipients.type as recipient_type",
      "recipients.type_id as recipient_type_id",
      "direct_message_groups.member_key as member_key",
    ])
    .where("user_messages.realm_id", "=", realmId)
    .where("user_messages.user_id", "=", userId)
    // The is_private bit lets a partial index on direct-message rows serve this query.
    .where(sql<boolean>`(user_messages.flags & ${sql.lit(FLAG_BITS.is_private)}) <> 0`)
    .where("recipients.type", "in", [RECIPIENT_PERSONAL, RECIPIENT_DM_GROUP])
    .orderBy("user_messages.message_id", "desc")
    .limit(limit)
    .execute();
}
