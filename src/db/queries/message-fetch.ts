/**
 * Fetch-side message queries (GET /messages/{id}): one message with everything its API
 * object needs, the reader's flags and the access columns, in ONE statement compiled once,
 * whatever the number of the reader's subscriptions, the message's reactions, edits or
 * direct-message participants (related rows come as JSON arrays).
 */
import { sql } from "kysely";
import type { Channel, User } from "../schema.js";
import type { Queryable } from "../tx.js";
import { compiledOnce } from "../compiled.js";
import { inChunks } from "../chunks.js";
import { commaSeparatedIntegers, jsonObjectsAgg } from "../dialect.js";
import { RECIPIENT_DM_GROUP, RECIPIENT_PERSONAL, type MessageEditRow, type ReactionRow, type SubmessageRow } from "./messages.js";
import type { MessageForRecord } from "./message-narrow.js";
import { channelAccessOf, messageWithReaderAccess } from "./message-reader-access.js";

/** The channel fields message access and the message object need. */
export type ChannelForReading = Pick<Channel, "id" | "realm_id" | "name" | "deactivated" | "invite_only" | "history_public_to_subscribers" | "is_web_public">;

/** The user fields a message object shows of its sender and direct-message participants. */
export const MESSAGE_USER_COLUMNS = ["id", "realm_id", "full_name", "delivery_email", "email_address_visibility", "is_bot", "avatar_source", "avatar_version"] as const;
export type MessageUser = Pick<User, (typeof MESSAGE_USER_COLUMNS)[number]>;

/** The reaction fields a message object shows. */
export type ReactionForRecord = Pick<ReactionRow, "emoji_name" | "emoji_code" | "reaction_type" | "user_id">;
export type SubmessageForRecord = Pick<SubmessageRow, "id" | "message_id" | "sender_id" | "msg_type" | "content">;
export type EditForRecord = Pick<MessageEditRow, "user_id" | "timestamp" | "prev_content" | "prev_rendered_content" | "prev_topic" | "topic" | "prev_channel_id" | "channel_id">;

export interface MessageForReader {
  /** The columns the message object shows (no more: each column read costs). */
  message: MessageForRecord;
  /** The reader's flags, or null when they have no per-user row. */
  flags: number | null;
  channel: ChannelForReading | null;
  /** For channel messages: whether the reader is actively subscribed to the channel. */
  subscribed: boolean;
  sender: MessageUser;
  /** Direct messages: every participant (sender included). */
  participants: MessageUser[] | undefined;
  /** Oldest first. */
  reactions: ReactionForRecord[];
  submessages: SubmessageForRecord[];
  /** Oldest first. */
  edits: EditForRecord[];
  /** The realm's linkifiers, as JSON text (`[{"id":…,"order":…,"pattern":…,"url_template":…},…]`, in no particular order). */
  linkifiersJson: string;
}

const REACTION_FIELDS = { id: "r.id", emoji_name: "r.emoji_name", emoji_code: "r.emoji_code", reaction_type: "r.reaction_type", user_id: "r.user_id" };
const SUBMESSAGE_FIELDS = { id: "sm.id", message_id: "sm.message_id", sender_id: "sm.sender_id", msg_type: "sm.msg_type", content: "sm.content" };
const EDIT_FIELDS = {
  id: "e.id",
  user_id: "e.user_id",
  timestamp: "e.timestamp",
  prev_content: "e.prev_content",
  prev_rendered_content: "e.prev_rendered_content",
  prev_topic: "e.prev_topic",
  topic: "e.topic",
  prev_channel_id: "e.prev_channel_id",
  channel_id: "e.channel_id",
};
const userFields = (alias: string) => Object.fromEntries(MESSAGE_USER_COLUMNS.map((c) => [c, `${alias}.${c}`]));

const messageForReader = compiledOnce((db, flagsUserId: number, subscriberId: number, realmId: number, messageId: number) =>
  messageWithReaderAccess(db, flagsUserId, subscriberId)
    .innerJoin("users as su", "su.id", "m.sender_id")
    .select([
      "m.id",
      "m.sender_id",
      "m.recipient_id",
      "m.topic",
      "m.content",
      "m.rendered_content",
      "m.date_sent",
      "m.sending_client",
      "m.is_me_message",
      "c.name as channel_name",
      "su.realm_id as sender_realm_id",
      "su.full_name as sender_full_name",
      "su.delivery_email as sender_delivery_email",
      "su.email_address_visibility as sender_email_address_visibility",
      "su.is_bot as sender_is_bot",
      "su.avatar_source as sender_avatar_source",
      "su.avatar_version as sender_avatar_version",
    ])
    .select((eb) => [
      eb
        .selectFrom("reactions as r")
        .select(jsonObjectsAgg(db, REACTION_FIELDS).as("j"))
        .whereRef("r.message_id", "=", "m.id")
        .whereRef("r.realm_id", "=", "m.realm_id")
        .as("reactions_json"),
      eb
        .selectFrom("submessages as sm")
        .select(jsonObjectsAgg(db, SUBMESSAGE_FIELDS).as("j"))
        .whereRef("sm.message_id", "=", "m.id")
        .whereRef("sm.realm_id", "=", "m.realm_id")
        .as("submessages_json"),
      eb
        .selectFrom("message_edits as e")
        .select(jsonObjectsAgg(db, EDIT_FIELDS).as("j"))
        .whereRef("e.message_id", "=", "m.id")
        .whereRef("e.realm_id", "=", "m.realm_id")
        .as("edits_json"),
      eb
        .selectFrom("linkifiers as l")
        .select(jsonObjectsAgg(db, { id: "l.id", order: "l.order", pattern: "l.pattern", url_template: "l.url_template" }).as("j"))
        .whereRef("l.realm_id", "=", "m.realm_id")
        .as("linkifiers_json"),
      // Direct messages: the sender and the other person, or the group's members, each
      // found by primary key (CROSS JOIN keeps SQLite from scanning the realm's users instead).
      sql<string | null>`case when m.channel_id is null then (
        select ${jsonObjectsAgg(db, userFields("u"))} from (
          select m.sender_id as id
          union select rp.type_id from recipients as rp where rp.id = m.recipient_id and rp.type = ${sql.lit(RECIPIENT_PERSONAL)}
          union select g_ids.value from recipients as rg
            join direct_message_groups as g on g.id = rg.type_id,
            ${commaSeparatedIntegers(db, "g.member_key", "g_ids")}
            where rg.id = m.recipient_id and rg.type = ${sql.lit(RECIPIENT_DM_GROUP)}
        ) as p cross join users as u
        where u.id = p.id and u.realm_id = m.realm_id
      ) end`.as("participants_json"),
    ])
    .where("m.realm_id", "=", realmId)
    .where("m.id", "=", messageId),
);

/** Rows of a JSON aggregate in id order (`[]`, by far the most common value, is not parsed). */
function parseRows<T extends { id: number }>(json: string | null): T[] {
  if (json === null || json === "[]") return [];
  const rows = JSON.parse(json) as T[];
  if (rows.length > 1) rows.sort((a, b) => a.id - b.id);
  return rows;
}

/**
 * One message with the reader's flags, its channel's access fields, the reader's
 * subscription, its sender, participants, reactions, submessages and edits and the
 * realm's linkifiers, in one statement (the access rule itself stays in lib/). A reader id
 * of -1 is nobody (spectators).
 */
export async function findMessageForReader(db: Queryable, realmId: number, readerId: number, messageId: number): Promise<MessageForReader | undefined> {
  const [row] = await messageForReader(db, readerId, readerId, realmId, messageId);
  if (!row) return undefined;
  const access = channelAccessOf(row);
  const channel: ChannelForReading | null = access === null ? null : { ...access, name: row.channel_name! };
  return {
    message: {
      id: row.id,
      sender_id: row.sender_id,
      recipient_id: row.recipient_id,
      channel_id: row.channel_id,
      topic: row.topic,
      content: row.content,
      rendered_content: row.rendered_content,
      date_sent: row.date_sent,
      sending_client: row.sending_client,
      is_me_message: row.is_me_message,
    },
    flags: row.reader_flags,
    channel,
    subscribed: row.subscription_active === 1,
    sender: {
      id: row.sender_id,
      realm_id: row.sender_realm_id,
      full_name: row.sender_full_name,
      delivery_email: row.sender_delivery_email,
      email_address_visibility: row.sender_email_address_visibility,
      is_bot: row.sender_is_bot,
      avatar_source: row.sender_avatar_source,
      avatar_version: row.sender_avatar_version,
    },
    participants: row.channel_id === null ? parseRows<MessageUser>(row.participants_json) : undefined,
    reactions: parseRows<ReactionForRecord & { id: number }>(row.reactions_json),
    submessages: parseRows<SubmessageForRecord>(row.submessages_json),
    edits: parseRows<EditForRecord & { id: number }>(row.edits_json),
    linkifiersJson: row.linkifiers_json ?? "[]",
  };
}

export const reactionsOfMessage: (db: Queryable, realmId: number, messageId: number) => Promise<ReactionRow[]> = compiledOnce((db, realmId: number, messageId: number) =>
  db.selectFrom("reactions").selectAll().where("realm_id", "=", realmId).where("message_id", "=", messageId).orderBy("id"),
);

export const submessagesOfMessage: (db: Queryable, realmId: number, messageId: number) => Promise<SubmessageRow[]> = compiledOnce((db, realmId: number, messageId: number) =>
  db.selectFrom("submessages").selectAll().where("realm_id", "=", realmId).where("message_id", "=", messageId).orderBy("id"),
);

export const editsOfMessage: (db: Queryable, realmId: number, messageId: number) => Promise<MessageEditRow[]> = compiledOnce((db, realmId: number, messageId: number) =>
  db.selectFrom("message_edits").selectAll().where("realm_id", "=", realmId).where("message_id", "=", messageId).orderBy("id"),
);

const messageUserById = compiledOnce((db, realmId: number, userId: number) => db.selectFrom("users").select(MESSAGE_USER_COLUMNS).where("realm_id", "=", realmId).where("id", "=", userId));

/** Senders and participants of messages, by id (one statement; a single user's is compiled once). */
export async function messageUsersByIds(db: Queryable, realmId: number, ids: readonly number[]): Promise<MessageUser[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  if (unique.length === 1) return messageUserById(db, realmId, unique[0]);
  return inChunks(unique, (chunk) => db.selectFrom("users").select(MESSAGE_USER_COLUMNS).where("realm_id", "=", realmId).where("id", "in", chunk).execute());
}
