/**
 * Message access: the ONLY way to load messages on behalf of a user.
 *
 * Upstream's rule (has_message_access): a direct message is accessible only to users
 * with a per-user row; a channel message is accessible to any non-guest when the
 * channel is public; otherwise, with history public to subscribers, to subscribers; and
 * otherwise only to subscribers who received it. Missing and inaccessible messages give
 * the same error, so ids do not leak.
 */
import { ApiError, UnauthorizedError } from "../errors.js";
import type { Channel, Message, Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { findChannelsByIds } from "../db/queries/channels.js";
import { subscribedRecipientIds } from "../db/queries/subscriptions.js";
import { findMessageById, findMessagesByIds, userMessageFlags } from "../db/queries/messages.js";
import { isGuest } from "./roles.js";

export const invalidMessage = () => new ApiError("Invalid message(s)");

export interface AccessedMessage {
  message: Message;
  /** The caller's flags, or null when they have no per-user row. */
  flags: number | null;
  channel: Channel | null;
  /** For channel messages: whether the caller is subscribed. */
  subscribed: boolean;
}

export interface MessageAccessOptions {
  /** Edits, deletions and reactions: archived channels are out of reach. */
  modifying?: boolean;
}

/** Whether a user may read a channel message (see the rule above). */
export function canAccessChannelMessage(
  user: Pick<User, "role" | "realm_id">,
  channel: Pick<Channel, "realm_id" | "deactivated" | "invite_only" | "history_public_to_subscribers">,
  subscribed: boolean,
  hasRow: boolean,
  opts: MessageAccessOptions = {},
): boolean {
  if (channel.realm_id !== user.realm_id) return false;
  if (opts.modifying && channel.deactivated) return false;
  if (!channel.invite_only && !isGuest(user)) return true;
  if (!channel.history_public_to_subscribers) return hasRow && subscribed;
  return subscribed;
}

/** Loads one message the user may access, with their flags; `Invalid message(s)` otherwise. */
export async function accessMessage(db: Queryable, user: User, id: number, opts: MessageAccessOptions = {}): Promise<AccessedMessage> {
  const [result] = await bulkAccessMessages(db, user, [id], opts);
  if (!result) throw invalidMessage();
  return result;
}

/**
 * The accessible messages among the ids (in id order), with flags and channels, in a
 * constant number of queries.
 */
export async function bulkAccessMessages(db: Queryable, user: User, ids: readonly number[], opts: MessageAccessOptions = {}): Promise<AccessedMessage[]> {
  const messages = ids.length === 1 ? [await findMessageById(db, user.realm_id, ids[0])].filter((m): m is Message => !!m) : await findMessagesByIds(db, user.realm_id, ids);
  if (messages.length === 0) return [];
  const flags = await userMessageFlags(db, user.id, messages.map((m) => m.id));
  const channelIds = [...new Set(messages.map((m) => m.channel_id).filter((c): c is number => c !== null))];
  const channels = new Map((await findChannelsByIds(db, user.realm_id, channelIds)).map((c) => [c.id, c]));
  const recipientIds = [...channels.values()].map((c) => c.recipient_id).filter((r): r is number => r !== null);
  const subscribedRecipients = await subscribedRecipientIds(db, user.realm_id, user.id, recipientIds);
  const out: AccessedMessage[] = [];
  for (const message of messages) {
    const f = flags.get(message.id) ?? null;
    if (message.channel_id === null) {
      if (f !== null) out.push({ message, flags: f, channel: null, subscribed: false });
      continue;
    }
    const channel = channels.get(message.channel_id);
    if (!channel) continue;
    const sub = channel.recipient_id !== null && subscribedRecipients.has(channel.recipient_id);
    if (canAccessChannelMessage(user, channel, sub, f !== null, opts)) out.push({ message, flags: f, channel, subscribed: sub });
  }
  return out;
}

/** Spectators get the same 401 for every failure, so they learn nothing about hidden messages. */
export const notLoggedIn = () => new UnauthorizedError("Not logged in: API authentication or user session required");

/** Whether spectators (no credentials) may read the realm's web-public channels. */
export function spectatorsAllowed(realm: Realm): boolean {
  return realm.enable_spectator_access === 1;
}
