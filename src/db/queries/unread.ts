/**
 * Reads behind /register's unread_msgs and recent_private_conversations: one query per
 * table family, bounded by a limit, whatever the number of messages.
 */
import { sql } from "kysely";
import { FLAG_BITS } from "../../lib/message-flags.js";
import { compiledOnce, literalLimit } from "../compiled.js";
import { inIntegerList, jsonArraysAgg } from "../dialect.js";
import type { Queryable } from "../tx.js";
import { RECIPIENT_DM_GROUP, RECIPIENT_PERSONAL } from "./messages.js";

/** One unread message as unreadMessages reads it: its id and the reader's flags (the message's own facts: caches/message-facts.ts). */
export type UnreadMessageRow = [id: number, flags: number];

/**
 * The user's newest unread messages (no read bit) from `fromMessageId` on, at most `limit`, as one JSON array of
 * UnreadMessageRow in no particular order. One value, not a row per message (which would
 * cost the driver far more), and no GROUP BY: grouping them in the statement (a sort of
 * every message, three filtered aggregates per group) cost more than parsing them and
 * grouping them in a Map (user-space instructions for a caller with 50 of 2,000 messages
 * unread: 3.1M grouped in SQL, 2.0M here; with all 2,000 unread: 19.7M and 19.5M). Each
 * message's recipient, sender and topic come from a cache (caches/message-facts.ts,
 * missing ones from messageFactRows), not from a join: for 2,000 unread messages the join
 * of messages and its JSON took 1.7 of the read's 2.7 ms (and the joins of recipients and
 * groups, now caches/recipients.ts, 390 of 1,010 µs before that).
 */
export const unreadMessagesQuery = (limit: number): ((db: Queryable, realmId: number, userId: number, fromMessageId: number) => Promise<Array<{ rows: string }>>) =>
  compiledOnce((db, realmId: number, userId: number, fromMessageId: number) => {
    const unread = db
      .selectFrom("user_messages")
      .select(["message_id", "flags"])
      .where("realm_id", "=", realmId)
      .where("user_id", "=", userId)
      // Every row below the user's unread floor is read (caches/unread-floors.ts).
      .where("message_id", ">=", fromMessageId)
      .where(sql<boolean>`("flags" & ${sql.lit(FLAG_BITS.read)}) = 0`)
      // Newest first, so the cap keeps the latest unreads.
      .orderBy("message_id", "desc")
      .limit(literalLimit(limit));
    return db.selectFrom(unread.as("u")).select(jsonArraysAgg(db, ["u.message_id", "u.flags"]).as("rows"));
  });

/** Recipient, sender and topic of the messages of `list` (integerListParam), as one JSON array of MessageFactRow. */
export const messageFactRows: (db: Queryable, realmId: number, list: string | number[]) => Promise<Array<{ rows: string }>> = compiledOnce((db, realmId: number, list: string | number[]) =>
  db
    .selectFrom("messages")
    .select(jsonArraysAgg(db, ["id", "recipient_id", "sender_id", "topic"]).as("rows"))
    .where("realm_id", "=", realmId)
    .where(inIntegerList(db, "id", list)),
);

/** Every recipient of a realm with what it stands for (the groups' member ids). */
export const realmRecipientRows: (db: Queryable, realmId: number) => Promise<Array<{ id: number; type: number; type_id: number; member_key: string | null }>> = compiledOnce(
  (db, realmId: number) =>
    db
      .selectFrom("recipients as r")
      .leftJoin("direct_message_groups as g", (j) => j.onRef("g.id", "=", "r.type_id").on(sql<boolean>`"r"."type" = ${sql.lit(RECIPIENT_DM_GROUP)}`))
      .select(["r.id as id", "r.type as type", "r.type_id as type_id", "g.member_key as member_key"])
      .where("r.realm_id", "=", realmId),
);

export interface DirectMessageRow {
  id: number;
  sender_id: number;
  recipient_type: number;
  recipient_type_id: number;
  /** Direct-message groups: their sorted, comma-joined member ids. */
  member_key: string | null;
}

/** The user's newest direct messages (personal and group), at most `limit`, newest first. */
export const recentDirectMessagesQuery = (limit: number): ((db: Queryable, realmId: number, userId: number) => Promise<DirectMessageRow[]>) =>
  compiledOnce((db, realmId: number, userId: number) =>
    db
      .selectFrom("user_messages")
      .innerJoin("messages", "messages.id", "user_messages.message_id")
      .innerJoin("recipients", "recipients.id", "messages.recipient_id")
      .leftJoin("direct_message_groups", (j) =>
        j.onRef("direct_message_groups.id", "=", "recipients.type_id").on("recipients.type", "=", sql.lit(RECIPIENT_DM_GROUP)),
      )
      .select([
        "messages.id as id",
        "messages.sender_id as sender_id",
        "recipients.type as recipient_type",
        "recipients.type_id as recipient_type_id",
        "direct_message_groups.member_key as member_key",
      ])
      .where("user_messages.realm_id", "=", realmId)
      .where("user_messages.user_id", "=", userId)
      // The is_private bit lets the partial index user_messages_private serve this query.
      .where(sql<boolean>`(user_messages.flags & ${sql.lit(FLAG_BITS.is_private)}) <> 0`)
      .where("recipients.type", "in", [sql.lit(RECIPIENT_PERSONAL), sql.lit(RECIPIENT_DM_GROUP)])
      .orderBy("user_messages.message_id", "desc")
      .limit(literalLimit(limit)),
  );
