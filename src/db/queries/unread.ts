/**
 * Reads behind /register's unread_msgs and recent_private_conversations: one query per
 * table family, bounded by a limit, whatever the number of messages.
 */
import { sql } from "kysely";
import { FLAG_BITS } from "../../lib/message-flags.js";
import { compiledOnce } from "../compiled.js";
import { jsonIntegersAgg } from "../dialect.js";
import type { Queryable } from "../tx.js";
import { RECIPIENT_CHANNEL, RECIPIENT_DM_GROUP, RECIPIENT_PERSONAL } from "./messages.js";

/** A user's unread messages of one place, as unreadGroups reads them. */
export interface UnreadGroupRow {
  recipient_type: number;
  recipient_type_id: number;
  /** Direct-message groups: their sorted, comma-joined member ids. */
  member_key: string | null;
  topic: string;
  /** Direct messages: the sender (a conversation's messages group by sender); channels: 0. */
  sender_id: number;
  /** JSON arrays of message ids, in no particular order: all, those mentioning the user, those with a wildcard mention. */
  ids: string;
  mentioned_ids: string;
  wildcard_ids: string;
}

const WILDCARD_BITS = FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/**
 * The user's newest unread messages (no read bit), at most `limit`, grouped in the
 * statement by recipient, exact topic and (direct messages) sender, each group's ids
 * aggregated: a few rows whatever the number of messages. The partial index
 * user_messages_unread holds exactly the rows read here.
 */
export function unreadGroups(db: Queryable, realmId: number, userId: number, limit: number): Promise<UnreadGroupRow[]> {
  return unreadGroupsQuery(db, realmId, userId, realmId, userId, limit - 1);
}

const isUnread = sql<boolean>`("flags" & ${sql.lit(FLAG_BITS.read)}) = 0`;

// The cap as the id of the limit-th newest unread message (none: no cap), which keeps the
// grouping one flat join where a subquery with ORDER BY and LIMIT cost a third more.
const unreadGroupsQuery = compiledOnce((db, realmId: number, userId: number, cutRealmId: number, cutUserId: number, offset: number) => {
  const cutoff = db
    .selectFrom("user_messages")
    .select("message_id")
    .where("realm_id", "=", cutRealmId)
    .where("user_id", "=", cutUserId)
    .where(isUnread)
    .orderBy("message_id", "desc")
    .limit(sql.lit(1))
    .offset(offset);
  const senderKey = sql<number>`case when ("u"."flags" & ${sql.lit(FLAG_BITS.is_private)}) <> 0 then "m"."sender_id" else 0 end`;
  const grouped = db
    .selectFrom("user_messages as u")
    .innerJoin("messages as m", "m.id", "u.message_id")
    .select([
      "m.recipient_id as recipient_id",
      "m.topic as topic",
      senderKey.as("sender_id"),
      jsonIntegersAgg(db, "u.message_id").as("ids"),
      jsonIntegersAgg(db, "u.message_id", sql<boolean>`("u"."flags" & ${sql.lit(FLAG_BITS.mentioned)}) <> 0`).as("mentioned_ids"),
      jsonIntegersAgg(db, "u.message_id", sql<boolean>`("u"."flags" & ${sql.lit(WILDCARD_BITS)}) <> 0`).as("wildcard_ids"),
    ])
    .where("u.realm_id", "=", realmId)
    .where("u.user_id", "=", userId)
    .where(sql<boolean>`("u"."flags" & ${sql.lit(FLAG_BITS.read)}) = 0`)
    .where("u.message_id", ">=", sql<number>`coalesce((${cutoff}), 0)`)
    .groupBy(["m.recipient_id", "m.topic", senderKey]);
  return db
    .selectFrom(grouped.as("c"))
    .innerJoin("recipients as r", "r.id", "c.recipient_id")
    .leftJoin("direct_message_groups as g", (j) => j.onRef("g.id", "=", "r.type_id").on(sql<boolean>`"r"."type" = ${sql.lit(RECIPIENT_DM_GROUP)}`))
    .select(["r.type as recipient_type", "r.type_id as recipient_type_id", "g.member_key as member_key", "c.topic", "c.sender_id", "c.ids", "c.mentioned_ids", "c.wildcard_ids"]);
});

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
