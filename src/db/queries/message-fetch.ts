/**
 * Fetch-side message queries (GET /messages/{id}): the fixed-shape lookups of one
 * message, compiled once, so reading a message costs a few prepared statements whatever
 * the number of the reader's subscriptions, the message's reactions or its edits.
 */
import type { Channel, Message, User } from "../schema.js";
import type { Queryable } from "../tx.js";
import { compiledOnce } from "../compiled.js";
import { inChunks } from "../chunks.js";
import type { MessageEditRow, ReactionRow, SubmessageRow } from "./messages.js";

/** The channel fields message access and the message object need. */
export type ChannelForReading = Pick<Channel, "id" | "realm_id" | "name" | "deactivated" | "invite_only" | "history_public_to_subscribers">;

export interface MessageForReader {
  message: Message;
  /** The reader's flags, or null when they have no per-user row. */
  flags: number | null;
  channel: ChannelForReading | null;
  /** For channel messages: whether the reader is actively subscribed to the channel. */
  subscribed: boolean;
}

const messageWithReaderRows = compiledOnce((db, flagsUserId: number, subscriberId: number, realmId: number, messageId: number) =>
  db
    .selectFrom("messages as m")
    .leftJoin("user_messages as um", (j) => j.onRef("um.message_id", "=", "m.id").on("um.user_id", "=", flagsUserId))
    .leftJoin("channels as c", "c.id", "m.channel_id")
    .leftJoin("subscriptions as s", (j) => j.onRef("s.recipient_id", "=", "c.recipient_id").on("s.user_id", "=", subscriberId))
    .selectAll("m")
    .select([
      "um.flags as reader_flags",
      "c.realm_id as channel_realm_id",
      "c.name as channel_name",
      "c.deactivated as channel_deactivated",
      "c.invite_only as channel_invite_only",
      "c.history_public_to_subscribers as channel_history_public",
      "s.active as subscription_active",
    ])
    .where("m.realm_id", "=", realmId)
    .where("m.id", "=", messageId),
);

/**
 * One message with the reader's flags, its channel's access fields and the reader's
 * subscription to it, in one statement (the access rule itself stays in message-access).
 */
export async function findMessageForReader(db: Queryable, realmId: number, readerId: number, messageId: number): Promise<MessageForReader | undefined> {
  const [row] = await messageWithReaderRows(db, readerId, readerId, realmId, messageId);
  if (!row) return undefined;
  const { reader_flags, channel_realm_id, channel_name, channel_deactivated, channel_invite_only, channel_history_public, subscription_active, ...message } = row;
  const channel: ChannelForReading | null =
    message.channel_id === null || channel_realm_id === null
      ? null
      : {
          id: message.channel_id,
          realm_id: channel_realm_id,
          name: channel_name!,
          deactivated: channel_deactivated!,
          invite_only: channel_invite_only!,
          history_public_to_subscribers: channel_history_public!,
        };
  return { message, flags: reader_flags, channel, subscribed: subscription_active === 1 };
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

/** The user fields a message object shows of its sender and direct-message participants. */
export const MESSAGE_USER_COLUMNS = ["id", "realm_id", "full_name", "delivery_email", "email_address_visibility", "is_bot", "avatar_source", "avatar_version"] as const;
export type MessageUser = Pick<User, (typeof MESSAGE_USER_COLUMNS)[number]>;

const messageUserById = compiledOnce((db, realmId: number, userId: number) => db.selectFrom("users").select(MESSAGE_USER_COLUMNS).where("realm_id", "=", realmId).where("id", "=", userId));

/** Senders and participants of messages, by id (one statement; a single user's is compiled once). */
export async function messageUsersByIds(db: Queryable, realmId: number, ids: readonly number[]): Promise<MessageUser[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  if (unique.length === 1) return messageUserById(db, realmId, unique[0]);
  return inChunks(unique, (chunk) => db.selectFrom("users").select(MESSAGE_USER_COLUMNS).where("realm_id", "=", realmId).where("id", "in", chunk).execute());
}
