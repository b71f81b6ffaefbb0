/**
 * The per-reader part of GET /messages/{id}: what deciding one reader's access to one
 * message needs (where the message is now, the channel's access columns, the reader's
 * subscription and flags) and nothing the record shows, which comes from a cache
 * (lib/message-read-fields.ts). One small statement compiled once, read on every request,
 * so access is decided on current rows.
 */
import type { Channel } from "../schema.js";
import type { Queryable } from "../tx.js";
import { compiledOnce } from "../compiled.js";

/** No user has this id: as a reader, nobody has flags or subscriptions (a spectator; a record cached for everyone). */
export const NOBODY = -1;

/** The channel columns the access rule reads. */
export type ChannelAccess = Pick<Channel, "id" | "realm_id" | "deactivated" | "invite_only" | "history_public_to_subscribers" | "is_web_public">;

export interface MessageReaderAccess {
  /** The message's channel now (null: a direct message). */
  channelId: number | null;
  /** The reader's flags, or null when they have no per-user row. */
  flags: number | null;
  channel: ChannelAccess | null;
  /** For channel messages: whether the reader is actively subscribed to the channel. */
  subscribed: boolean;
}

/**
 * A message (`m`) with the reader's per-user row (`um`), its channel (`c`) and the reader's
 * subscription to it (`s`), and the columns access needs (the first two parameters are the
 * reader's id, as flags owner and as subscriber).
 */
export function messageWithReaderAccess(db: Queryable, flagsUserId: number, subscriberId: number) {
  return db
    .selectFrom("messages as m")
    .leftJoin("user_messages as um", (j) => j.onRef("um.message_id", "=", "m.id").on("um.user_id", "=", flagsUserId))
    .leftJoin("channels as c", "c.id", "m.channel_id")
    .leftJoin("subscriptions as s", (j) => j.onRef("s.recipient_id", "=", "c.recipient_id").on("s.user_id", "=", subscriberId))
    .select([
      "m.channel_id",
      "um.flags as reader_flags",
      "c.realm_id as channel_realm_id",
      "c.deactivated as channel_deactivated",
      "c.invite_only as channel_invite_only",
      "c.history_public_to_subscribers as channel_history_public",
      "c.is_web_public as channel_web_public",
      "s.active as subscription_active",
    ]);
}

const messageAccessRow = compiledOnce((db, flagsUserId: number, subscriberId: number, realmId: number, messageId: number) =>
  messageWithReaderAccess(db, flagsUserId, subscriberId).where("m.realm_id", "=", realmId).where("m.id", "=", messageId),
);

/** The access columns of a message's channel, as statements that join it as `c` name them (null: no channel). */
export function channelAccessOf(row: {
  channel_id: number | null;
  channel_realm_id: number | null;
  channel_deactivated: number | null;
  channel_invite_only: number | null;
  channel_history_public: number | null;
  channel_web_public: number | null;
}): ChannelAccess | null {
  if (row.channel_id === null || row.channel_realm_id === null) return null;
  return {
    id: row.channel_id,
    realm_id: row.channel_realm_id,
    deactivated: row.channel_deactivated!,
    invite_only: row.channel_invite_only!,
    history_public_to_subscribers: row.channel_history_public!,
    is_web_public: row.channel_web_public!,
  };
}

/** The message's access facts for a reader (NOBODY: a spectator); undefined when the realm has no such message. */
export async function findMessageReaderAccess(db: Queryable, realmId: number, readerId: number, messageId: number): Promise<MessageReaderAccess | undefined> {
  const [row] = await messageAccessRow(db, readerId, readerId, realmId, messageId);
  if (!row) return undefined;
  return { channelId: row.channel_id, flags: row.reader_flags, channel: channelAccessOf(row), subscribed: row.subscription_active === 1 };
}
