/** Writes for message edits, moves and deletions (realm-scoped). */
import type { Insertable } from "kysely";
import { sql } from "kysely";
import type { Message, MessageEditTable, MessageTable } from "../schema.js";
import type { Queryable } from "../tx.js";
import { lower } from "../dialect.js";
import { chunked, inChunks } from "../chunks.js";
import type { Updateable } from "kysely";

export async function insertMessageEdits(db: Queryable, rows: ReadonlyArray<Insertable<MessageEditTable>>): Promise<void> {
  // Up to a dozen values per row.
  for (const chunk of chunked(rows, 400)) await db.insertInto("message_edits").values(chunk).execute();
}

/** Messages of a channel topic (case-insensitive), optionally from an id on, oldest first. */
export async function messagesInTopic(db: Queryable, realmId: number, recipientId: number, topic: string, fromId?: number): Promise<Message[]> {
  let q = db
    .selectFrom("messages")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("recipient_id", "=", recipientId)
    .where(lower("topic"), "=", topic.toLowerCase());
  if (fromId !== undefined) q = q.where("id", ">=", fromId);
  return q.orderBy("id").execute();
}

export async function updateMessages(db: Queryable, realmId: number, ids: readonly number[], set: Updateable<MessageTable>): Promise<void> {
  for (const chunk of chunked(ids)) await db.updateTable("messages").set(set).where("realm_id", "=", realmId).where("id", "in", chunk).execute();
}

export async function userMessageRows(db: Queryable, messageIds: readonly number[]): Promise<Array<{ user_id: number; message_id: number; flags: number }>> {
  if (messageIds.length === 0) return [];
  return inChunks(messageIds, (chunk) => db.selectFrom("user_messages").select(["user_id", "message_id", "flags"]).where("message_id", "in", chunk).execute());
}

/** Sets the flags of one message's rows for these users. */
export async function setUserMessageFlags(db: Queryable, messageId: number, userIds: readonly number[], flags: number): Promise<void> {
  for (const chunk of chunked(userIds)) await db.updateTable("user_messages").set({ flags }).where("message_id", "=", messageId).where("user_id", "in", chunk).execute();
}

export async function deleteUserMessages(db: Queryable, messageIds: readonly number[], userIds: readonly number[]): Promise<void> {
  for (const messages of chunked(messageIds, 2500)) {
    for (const users of chunked(userIds, 2500)) await db.deleteFrom("user_messages").where("message_id", "in", messages).where("user_id", "in", users).execute();
  }
}

/** Deletes messages with everything hanging off them. */
export async function deleteMessagesCascade(db: Queryable, realmId: number, ids: readonly number[]): Promise<void> {
  for (const list of chunked(ids)) await deleteMessagesWithRows(db, realmId, list);
}

async function deleteMessagesWithRows(db: Queryable, realmId: number, list: number[]): Promise<void> {
  await db.deleteFrom("user_messages").where("realm_id", "=", realmId).where("message_id", "in", list).execute();
  await db.deleteFrom("reactions").where("realm_id", "=", realmId).where("message_id", "in", list).execute();
  await db.deleteFrom("submessages").where("realm_id", "=", realmId).where("message_id", "in", list).execute();
  await db.deleteFrom("message_edits").where("realm_id", "=", realmId).where("message_id", "in", list).execute();
  await db.deleteFrom("attachment_messages").where("message_id", "in", list).execute();
  await db.deleteFrom("messages").where("realm_id", "=", realmId).where("id", "in", list).execute();
}

/** Sets a channel's first_message_id to its oldest remaining message (null when empty); returns it. */
export async function recomputeFirstMessageId(db: Queryable, realmId: number, channelId: number): Promise<number | null> {
  const row = await db
    .selectFrom("messages")
    .select(sql<number | null>`min(id)`.as("min_id"))
    .where("realm_id", "=", realmId)
    .where("channel_id", "=", channelId)
    .executeTakeFirst();
  const first = row?.min_id ?? null; // the oldest remaining message
  await db.updateTable("channels").set({ first_message_id: first }).where("realm_id", "=", realmId).where("id", "=", channelId).execute();
  return first;
}
