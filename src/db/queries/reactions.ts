/** The reactions table: one row per (message, user, reaction_type, emoji_code). */
import { sql, type Insertable } from "kysely";
import { compiledOnce } from "../compiled.js";
import type { ReactionTable } from "../schema.js";
import type { Queryable } from "../tx.js";
import type { ReactionRow } from "./messages.js";

interface ReactionKey {
  realmId: number;
  messageId: number;
  emojiCode: string;
  reactionType: string;
}

const reactionsWithEmoji = (db: Queryable, realmId: number, messageId: number, emojiCode: string, reactionType: string) =>
  db
    .selectFrom("reactions")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("message_id", "=", messageId)
    .where("emoji_code", "=", emojiCode)
    .where("reaction_type", "=", reactionType);
// Compiled once (every reaction looks twice); the limit is a literal, not a parameter.
const oldestReaction = compiledOnce((db, realmId: number, messageId: number, emojiCode: string, reactionType: string) =>
  reactionsWithEmoji(db, realmId, messageId, emojiCode, reactionType).orderBy("id").limit(sql.lit(1)),
);
const oldestReactionOfUser = compiledOnce((db, realmId: number, messageId: number, emojiCode: string, reactionType: string, userId: number) =>
  reactionsWithEmoji(db, realmId, messageId, emojiCode, reactionType).where("user_id", "=", userId).orderBy("id").limit(sql.lit(1)),
);

/** The oldest reaction on the message with this emoji (any user's): a new one votes for it. */
export async function findReactionOnMessage(db: Queryable, key: ReactionKey, userId?: number): Promise<ReactionRow | undefined> {
  const [row] =
    userId === undefined
      ? await oldestReaction(db, key.realmId, key.messageId, key.emojiCode, key.reactionType)
      : await oldestReactionOfUser(db, key.realmId, key.messageId, key.emojiCode, key.reactionType, userId);
  return row;
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
