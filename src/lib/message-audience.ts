/**
 * Who receives events about existing messages (edits, moves, deletions, reactions,
 * submessages, typing while editing): exactly the users who can read them, decided by
 * canAccessChannelMessage, the rule every read path uses (GET /messages/{id},
 * bulkAccessMessages), so an event never tells a user about a message they cannot fetch.
 *
 * Like upstream (event_recipient_ids_for_action_on_messages), only users who hold a
 * per-user row or subscribe to the channel are candidates: a non-subscriber who merely
 * browsed a public channel gets no live updates, as for newly sent messages.
 */
import type { Channel, Message } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { findChannelsByIds } from "../db/queries/channels.js";
import { activeRowHolders, activeSubscribersWithRoles } from "../db/queries/message-audience.js";
import { canAccessChannelMessage } from "./message-access.js";

export interface MessageReader {
  userId: number;
  role: number;
  /** The messages (among those asked about) this user can read, ascending. */
  messageIds: number[];
  /** The user's flags per message id, for the messages they hold a row for. */
  flags: ReadonlyMap<number, number>;
}

/**
 * The readers of messages of one conversation (one channel, or one direct-message
 * conversation when `channel` is null), keyed by user id. Three statements at most.
 * `channel` is the channel the messages are in now (after a move: the new one).
 */
export async function messageReaders(db: Queryable, realmId: number, messages: readonly Pick<Message, "id">[], channel: Channel | null): Promise<Map<number, MessageReader>> {
  const ids = [...new Set(messages.map((m) => m.id))].sort((a, b) => a - b);
  const candidates = new Map<number, { role: number; flags: Map<number, number>; subscribed: boolean }>();
  const candidate = (userId: number, role: number) => {
    let c = candidates.get(userId);
    if (!c) candidates.set(userId, (c = { role, flags: new Map(), subscribed: false }));
    return c;
  };
  for (const row of await activeRowHolders(db, realmId, ids)) candidate(row.user_id, row.role).flags.set(row.message_id, row.flags);
  if (channel !== null && channel.recipient_id !== null) {
    for (const sub of await activeSubscribersWithRoles(db, realmId, channel.recipient_id)) candidate(sub.user_id, sub.role).subscribed = true;
  }
  const out = new Map<number, MessageReader>();
  for (const [userId, c] of candidates) {
    const user = { role: c.role, realm_id: realmId };
    const readable = ids.filter((id) => (channel === null ? c.flags.has(id) : canAccessChannelMessage(user, channel, c.subscribed, c.flags.has(id))));
    if (readable.length > 0) out.set(userId, { userId, role: c.role, messageIds: readable, flags: c.flags });
  }
  return out;
}

/**
 * The users to send an event about these messages (of one conversation) to: those who
 * can read at least one of them, ascending. Loads the channel when not given.
 * Reactions and submessages use it with one message.
 */
type MessageRef = Pick<Message, "id" | "channel_id">;

export async function messageEventAudience(db: Queryable, realmId: number, messages: MessageRef | readonly MessageRef[], channel?: Channel | null): Promise<number[]> {
  const list: readonly MessageRef[] = Array.isArray(messages) ? messages : [messages as MessageRef];
  if (list.length === 0) return [];
  const channelId = list[0].channel_id;
  let where: Channel | null = channel ?? null;
  if (channel === undefined && channelId !== null) where = (await findChannelsByIds(db, realmId, [channelId]))[0] ?? null;
  if (channelId !== null && where === null) return [];
  const readers = await messageReaders(db, realmId, list, channelId === null ? null : where);
  return [...readers.keys()].sort((a, b) => a - b);
}

/**
 * A move to another channel, given the readers before (in the old channel) and after (in
 * `target`): who gets the update (the readers after, plus earlier readers who may still
 * read the messages without following the new channel, e.g. non-guests when it is
 * public), and which ids each earlier reader lost.
 */
export function moveAudience(
  realmId: number,
  target: Channel,
  before: ReadonlyMap<number, MessageReader>,
  after: ReadonlyMap<number, MessageReader>,
): { readers: Map<number, MessageReader>; lost: Map<number, number[]> } {
  const readers = new Map(after);
  const lost = new Map<number, number[]>();
  for (const reader of before.values()) {
    let still = after.get(reader.userId);
    // Not a follower of the new channel and holding no row there: the rule decides alone.
    if (!still && canAccessChannelMessage({ role: reader.role, realm_id: realmId }, target, false, false)) {
      still = { ...reader, flags: new Map() };
      readers.set(reader.userId, still);
    }
    const kept = new Set(still?.messageIds ?? []);
    const gone = reader.messageIds.filter((id) => !kept.has(id));
    if (gone.length > 0) lost.set(reader.userId, gone);
  }
  return { readers, lost };
}
