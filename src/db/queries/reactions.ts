/** The reactions table: one row per (message, user, reaction_type, emoji_code). */
import type { Insertable } from "kysely";
import type { ReactionTable } from "../schema.js";
import type { Queryable } from "../tx.js";
import type { ReactionRow } from "./messages.js";

interface ReactionKey {
  realmId: number;
  messageId: number;
  emojiCode: string;
  reactionType: string;
}

/** The oldest reaction on the message with this emoji (any user's): a new one votes for it. */
export async function findReactionOnMessage(db: Queryable, key: ReactionKey, userId?: number): Promise<ReactionRow | undefined> {
  let q = db
    .selectFrom("reactions")
    .selectAll()
    .where("realm_id", "=", key.realmId)
    .where("message_id", "=", key.messageId)
    .where("emoji_code", "=", key.emojiCode)
    .where("reaction_type", "=", key.reactionType);
  if (userId !== undefined) q = q.where("user_id", "=", userId);
  return q.orderBy("id").limit(1).executeTakeFirst();
}

/** Inserts the reaction; false when the same user's identical reaction exists (a concurrent request won). */
export async function insertReaction(db: Queryable, row: Insertable<ReactionTable>): Promise<boolean> {
  const result = await db
    .insertInto("reactions")
    .values(row)
    .onConflict((oc) => oc.columns(["message_id", "user_id", "reaction_type", "emoji_code"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Deletes the row; false when it was already gone. */
export async function deleteReaction(db: Queryable, id: number): Promise<boolean> {
  const result = await db.deleteFrom("reactions").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Gives a user a per-user row for a message they read without one (flags read + historical). */
export async function ensureUserMessage(db: Queryable, row: { realm_id: number; user_id: number; message_id: number; flags: number }): Promise<void> {
  await db
    .insertInto("user_messages")
    .values(row)
    .onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing())
    .execute();
}
