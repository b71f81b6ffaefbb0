/**
 * The notification bot's notices about new subscriptions (upstream
 * send_messages_for_new_subscribers): a direct message to each human subscribed by
 * someone else to existing channels, and with `announce`, a post about the new channels
 * in the realm's new-channel announcements channel. Computed in the subscribing
 * transaction, sent by the caller once it has committed.
 */
import type { Channel, Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { findChannelsByIds } from "../db/queries/channels.js";
import { NEW_CHANNELS_TOPIC, newChannelsAnnouncement, youWereSubscribedNotice } from "../lib/notification-bot.js";
import type { InternalMessage } from "./internal-messages.js";

export async function subscriptionNotices(
  tx: Tx,
  realm: Realm,
  actor: User,
  subscribed: ReadonlyArray<{ user: User; channel: Channel }>,
  created: readonly Channel[],
  announce: boolean,
): Promise<InternalMessage[]> {
  const out: InternalMessage[] = [];
  const createdIds = new Set(created.map((c) => c.id));
  const byUser = new Map<number, { user: User; names: string[] }>();
  for (const { user, channel } of subscribed) {
    // Not to the actor (they subscribed themselves), not to bots, not about channels just created.
    if (user.id === actor.id || user.is_bot || createdIds.has(channel.id)) continue;
    const entry = byUser.get(user.id) ?? { user, names: [] };
    entry.names.push(channel.name);
    byUser.set(user.id, entry);
  }
  for (const { user, names } of byUser.values()) {
    out.push({ to: { users: [user] }, content: youWereSubscribedNotice(actor, names), markReadFor: [actor.id] });
  }
  if (announce && created.length > 0 && realm.new_stream_announcements_stream_id !== null) {
    const [target] = await findChannelsByIds(tx, realm.id, [realm.new_stream_announcements_stream_id]);
    if (target) {
      out.push({ to: { channel: target, topic: NEW_CHANNELS_TOPIC }, content: newChannelsAnnouncement(actor, created), markReadFor: [actor.id] });
    }
  }
  return out;
}
