/** Message rows and their per-user rows, recipients and direct-message groups. Realm-scoped. */
import type { Insertable, Selectable } from "kysely";
import type { Message, MessageTable, Recipient, User } from "../schema.js";
import type { Queryable } from "../tx.js";
import { inIntegers, integerRows, lower, pairRows, pairRowsParameters, withoutStatementUndo } from "../dialect.js";
import { inChunks } from "../chunks.js";
import { compiledOnce, compiledWriteOnce } from "../compiled.js";
import type { MessageWriterStatements, NewMessageRow } from "../message-writer-protocol.js";

export const RECIPIENT_PERSONAL = 1;
export const RECIPIENT_CHANNEL = 2;
export const RECIPIENT_DM_GROUP = 3;

/** The columns a new message sets, in the order of insertMessageRow's parameters. */
type NewMessage = Pick<
  Insertable<MessageTable>,
  "realm_id" | "sender_id" | "recipient_id" | "channel_id" | "topic" | "content" | "rendered_content" | "date_sent" | "sending_client" | "is_me_message" | "has_image" | "has_link"
>;

const buildInsertMessageRow = (
  db: Queryable,
  realm_id: number,
  sender_id: number,
  recipient_id: number,
  channel_id: number | null,
  topic: string,
  content: string,
  rendered_content: string,
  date_sent: number,
  sending_client: string,
  is_me_message: number,
  has_image: number,
  has_link: number,
) =>
  db
    .insertInto("messages")
    .values({ realm_id, sender_id, recipient_id, channel_id, topic, content, rendered_content, date_sent, sending_client, is_me_message, has_image, has_link })
    .returningAll();

const insertMessageRow = compiledOnce(buildInsertMessageRow);

/** Inserts a message and returns the stored row (compiled once: `messages` is no cached table). */
export async function insertMessage(db: Queryable, row: NewMessage): Promise<Message> {
  const [message] = await insertMessageRow(
    db,
    row.realm_id,
    row.sender_id,
    row.recipient_id,
    row.channel_id ?? null,
    row.topic ?? "",
    row.content,
    row.rendered_content,
    row.date_sent,
    row.sending_client ?? "API",
    row.is_me_message ?? 0,
    row.has_image ?? 0,
    row.has_link ?? 0,
  );
  return message;
}

/**
 * One message's per-user rows with their flags, in one INSERT whatever the number of
 * recipients; compiled once, the cache write watcher still sees it (`user_messages`).
 */
export async function insertUserMessagesOfMessage(db: Queryable, realmId: number, messageId: number, flagsByUser: ReadonlyMap<number, number>): Promise<void> {
  if (flagsByUser.size === 0) return;
  await insertUserMessagesOf(db, realmId, messageId, [...flagsByUser]);
}

const buildInsertUserMessagesOf = (db: Queryable, realmId: number, messageId: number, flags: ReadonlyArray<readonly [number, number]>) =>
  withoutStatementUndo(db, db.insertInto("user_messages"))
    .columns(["realm_id", "message_id", "user_id", "flags"])
    .expression(pairRows(db, [realmId, messageId], flags) as never);

const insertUserMessagesOf = compiledWriteOnce(buildInsertUserMessagesOf, (db, realmId, messageId, flags) => pairRowsParameters(db, [realmId, messageId], flags));

/**
 * The SQL of the message writer's thread (db/message-writer-thread.ts), which runs without
 * Kysely: the two statements above, compiled from the same builders, so that a channel
 * message stored on the thread and one stored here set the same columns. The order the
 * thread binds a row's fields in is read off the compiled parameters (a sample row with a
 * distinct value per field), not written a second time; insertUserMessages binds (realm id,
 * message id, packed pairs).
 */
export function messageWriterStatements(db: Queryable): MessageWriterStatements {
  const sample: NewMessageRow = {
    realm_id: 1,
    sender_id: 2,
    recipient_id: 3,
    channel_id: 4,
    topic: "5",
    content: "6",
    rendered_content: "7",
    date_sent: 8,
    sending_client: "9",
    is_me_message: 10,
    has_image: 11,
    has_link: 12,
  };
  const r = sample;
  const insertMessage = buildInsertMessageRow(db, r.realm_id, r.sender_id, r.recipient_id, r.channel_id, r.topic, r.content, r.rendered_content, r.date_sent, r.sending_client, r.is_me_message, r.has_image, r.has_link).compile();
  const fields = Object.keys(sample) as Array<keyof NewMessageRow>;
  const messageFields = insertMessage.parameters.map((value) => fields.find((field) => sample[field] === value));
  if (messageFields.length !== fields.length || messageFields.some((field) => field === undefined)) {
    throw new Error(`messageWriterStatements: the parameters of ${insertMessage.sql} are not a row's fields`);
  }
  const insertUserMessages = buildInsertUserMessagesOf(db, 1, 2, [[3, 4]]).compile();
  if (JSON.stringify(insertUserMessages.parameters) !== JSON.stringify(pairRowsParameters(db, [1, 2], [[3, 4]]))) {
    throw new Error(`messageWriterStatements: the parameters of ${insertUserMessages.sql} are not (realm id, message id, pairs)`);
  }
  return { insertMessage: insertMessage.sql, messageFields: messageFields as Array<keyof NewMessageRow>, insertUserMessages: insertUserMessages.sql };
}

/** One INSERT for all the per-user rows of a message, however many (the rows travel as one parameter per column). */
export async function insertUserMessages(
  db: Queryable,
  rows: ReadonlyArray<{ realm_id: number; user_id: number; message_id: number; flags: number }>,
): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((r) => [r.realm_id, r.user_id, r.message_id, r.flags] as const);
  await withoutStatementUndo(db, db.insertInto("user_messages"))
    .columns(["realm_id", "user_id", "message_id", "flags"])
    .expression(integerRows(db, 4, values) as never)
    .execute();
}

export async function findMessageById(db: Queryable, realmId: number, id: number): Promise<Message | undefined> {
  return db.selectFrom("messages").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

export async function findMessagesByIds(db: Queryable, realmId: number, ids: readonly number[]): Promise<Message[]> {
  if (ids.length === 0) return [];
  // Ascending chunks of ascending ids keep the whole result ordered by id.
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  return inChunks(sorted, (chunk) => db.selectFrom("messages").selectAll().where("realm_id", "=", realmId).where("id", "in", chunk).orderBy("id").execute());
}

/** The user's flags per message id, for the messages they have a row for. */
export async function userMessageFlags(db: Queryable, userId: number, messageIds: readonly number[]): Promise<Map<number, number>> {
  if (messageIds.length === 0) return new Map();
  const rows = await inChunks([...new Set(messageIds)], (chunk) =>
    db.selectFrom("user_messages").select(["message_id", "flags"]).where("user_id", "=", userId).where("message_id", "in", chunk).execute(),
  );
  return new Map(rows.map((r) => [r.message_id, r.flags]));
}

export async function usersByIds(db: Queryable, realmId: number, ids: readonly number[]): Promise<User[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("id", "in", [...new Set(ids)]).execute();
}

/** Users by real email (case-insensitive). */
export async function usersByEmails(db: Queryable, realmId: number, emails: readonly string[]): Promise<User[]> {
  if (emails.length === 0) return [];
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where(
      lower("delivery_email"),
      "in",
      emails.map((e) => e.toLowerCase()),
    )
    .execute();
}

/** Active users whose full name matches one of the names (case-insensitive). */
export async function activeUsersByFullNames(db: Queryable, realmId: number, names: readonly string[]): Promise<User[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("is_active", "=", 1)
    .where(
      lower("full_name"),
      "in",
      names.map((n) => n.toLowerCase()),
    )
    .execute();
}

export async function recipientsByIds(db: Queryable, realmId: number, ids: readonly number[]): Promise<Recipient[]> {
  if (ids.length === 0) return [];
  return inChunks([...new Set(ids)], (chunk) => db.selectFrom("recipients").selectAll().where("realm_id", "=", realmId).where("id", "in", chunk).execute());
}

/** Gets or creates a recipient row (personal or DM group); safe under concurrent creation. */
export async function ensureRecipient(db: Queryable, realmId: number, type: number, typeId: number): Promise<number> {
  await db
    .insertInto("recipients")
    .values({ realm_id: realmId, type, type_id: typeId })
    .onConflict((oc) => oc.columns(["type", "type_id"]).doNothing())
    .execute();
  const row = await db.selectFrom("recipients").select("id").where("type", "=", type).where("type_id", "=", typeId).executeTakeFirstOrThrow();
  return row.id;
}

/** Personal recipients of users (type 1), by user id, for those that have one. */
export async function personalRecipientIds(db: Queryable, realmId: number, userIds: readonly number[]): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("recipients")
    .select(["id", "type_id"])
    .where("realm_id", "=", realmId)
    .where("type", "=", RECIPIENT_PERSONAL)
    .where("type_id", "in", [...userIds])
    .execute();
  return new Map(rows.map((r) => [r.type_id, r.id]));
}

/** Gets or creates the direct-message group of exactly these users; returns its recipient id. */
export async function ensureDmGroupRecipient(db: Queryable, realmId: number, userIds: readonly number[]): Promise<number> {
  const sorted = [...new Set(userIds)].sort((a, b) => a - b);
  const key = sorted.join(",");
  await db
    .insertInto("direct_message_groups")
    .values({ realm_id: realmId, member_key: key, group_size: sorted.length })
    .onConflict((oc) => oc.columns(["realm_id", "member_key"]).doNothing())
    .execute();
  const group = await db
    .selectFrom("direct_message_groups")
    .select(["id", "recipient_id"])
    .where("realm_id", "=", realmId)
    .where("member_key", "=", key)
    .executeTakeFirstOrThrow();
  if (group.recipient_id !== null) return group.recipient_id;
  const recipientId = await ensureRecipient(db, realmId, RECIPIENT_DM_GROUP, group.id);
  await db.updateTable("direct_message_groups").set({ recipient_id: recipientId }).where("id", "=", group.id).execute();
  return recipientId;
}

/** The DM-group recipient of exactly these users, if it exists (no creation). */
export async function findDmGroupRecipient(db: Queryable, realmId: number, userIds: readonly number[]): Promise<number | null> {
  const key = [...new Set(userIds)].sort((a, b) => a - b).join(",");
  const row = await db
    .selectFrom("direct_message_groups")
    .select("recipient_id")
    .where("realm_id", "=", realmId)
    .where("member_key", "=", key)
    .executeTakeFirst();
  return row?.recipient_id ?? null;
}

/** Member ids of DM groups by group id (from member_key). */
export async function dmGroupMembers(db: Queryable, realmId: number, groupIds: readonly number[]): Promise<Map<number, number[]>> {
  if (groupIds.length === 0) return new Map();
  const rows = await inChunks([...new Set(groupIds)], (chunk) =>
    db.selectFrom("direct_message_groups").select(["id", "member_key"]).where("realm_id", "=", realmId).where("id", "in", chunk).execute(),
  );
  return new Map(rows.map((r) => [r.id, r.member_key.split(",").map(Number)]));
}

export type ReactionRow = Selectable<import("../schema.js").ReactionTable>;
export type SubmessageRow = Selectable<import("../schema.js").SubmessageTable>;
export type MessageEditRow = Selectable<import("../schema.js").MessageEditTable>;

export async function reactionsForMessages(db: Queryable, realmId: number, ids: readonly number[]): Promise<ReactionRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("reactions").selectAll().where("realm_id", "=", realmId).where("message_id", "in", [...ids]).orderBy("id").execute();
}

export async function submessagesForMessages(db: Queryable, realmId: number, ids: readonly number[]): Promise<SubmessageRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("submessages").selectAll().where("realm_id", "=", realmId).where("message_id", "in", [...ids]).orderBy("id").execute();
}

/** Edit rows of the messages, oldest first. */
export async function editsForMessages(db: Queryable, realmId: number, ids: readonly number[]): Promise<MessageEditRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("message_edits").selectAll().where("realm_id", "=", realmId).where("message_id", "in", [...ids]).orderBy("id").execute();
}

/** Users who sent a message in the channel topic (topic wildcard mentions reach them). */
export async function topicParticipantIds(db: Queryable, realmId: number, recipientId: number, topic: string): Promise<number[]> {
  const rows = await db
    .selectFrom("messages")
    .select("sender_id")
    .distinct()
    .where("realm_id", "=", realmId)
    .where("recipient_id", "=", recipientId)
    .where(lower("topic"), "=", topic.toLowerCase())
    .execute();
  return rows.map((r) => r.sender_id);
}

/** Alert words of these users. */
export async function alertWordsOfUsers(db: Queryable, realmId: number, userIds: readonly number[]): Promise<Array<{ user_id: number; word: string }>> {
  if (userIds.length === 0) return [];
  return db.selectFrom("alert_words").select(["user_id", "word"]).where("realm_id", "=", realmId).where(inIntegers(db, "user_id", userIds)).execute();
}

/** Sets the channel's first_message_id when it has none yet. */
export async function setFirstMessageIdIfNull(db: Queryable, realmId: number, channelId: number, messageId: number): Promise<void> {
  await db
    .updateTable("channels")
    .set({ first_message_id: messageId })
    .where("realm_id", "=", realmId)
    .where("id", "=", channelId)
    .where("first_message_id", "is", null)
    .execute();
}

const linkifierRows = compiledOnce((db, realmId: number) =>
  db.selectFrom("linkifiers").select(["id", "pattern", "url_template"]).where("realm_id", "=", realmId).orderBy("order").orderBy("id"),
);

/** The realm's linkifiers in their order. */
export async function linkifiersOfRealm(db: Queryable, realmId: number): Promise<Array<{ id: number; pattern: string; url_template: string }>> {
  return linkifierRows(db, realmId);
}

/** Named, active user groups with one of these names (case-insensitive). */
export async function namedGroupsByNames(db: Queryable, realmId: number, names: readonly string[]): Promise<Array<{ id: number; name: string | null }>> {
  if (names.length === 0) return [];
  return db
    .selectFrom("user_groups")
    .select(["id", "name"])
    .where("realm_id", "=", realmId)
    .where("deactivated", "=", 0)
    .where("name", "is not", null)
    .where(
      lower("name"),
      "in",
      names.map((n) => n.toLowerCase()),
    )
    .execute();
}

/** Name and can_mention_group of groups, by id order. */
export async function mentionSettingsOfGroups(
  db: Queryable,
  realmId: number,
  ids: readonly number[],
): Promise<Array<{ id: number; name: string | null; can_mention_group_id: number | null }>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("user_groups")
    .select(["id", "name", "can_mention_group_id"])
    .where("realm_id", "=", realmId)
    .where("id", "in", [...ids])
    .orderBy("id")
    .execute();
}

/** Recipient ids of the realm's live web-public channels. */
export async function webPublicRecipientIds(db: Queryable, realmId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("channels")
    .select("recipient_id")
    .where("realm_id", "=", realmId)
    .where("is_web_public", "=", 1)
    .where("deactivated", "=", 0)
    .execute();
  return rows.map((r) => r.recipient_id).filter((r): r is number => r !== null);
}

/** Recipient ids of the realm's public (not invite-only) channels. */
export async function publicRecipientIds(db: Queryable, realmId: number): Promise<number[]> {
  const rows = await db.selectFrom("channels").select("recipient_id").where("realm_id", "=", realmId).where("invite_only", "=", 0).execute();
  return rows.map((r) => r.recipient_id).filter((r): r is number => r !== null);
}
