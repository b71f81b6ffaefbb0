/**
 * The notification bot's notices about a message move (upstream do_update_message's
 * tail: maybe_send_resolve_topic_notifications and send_message_moved_breadcrumbs).
 * Computed inside the edit's transaction (what the actor can see before and after the
 * move); sent by the caller once the edit has committed.
 */
import type { Channel, Message, Realm, User } from "../db/schema.js";
import type { Tx } from "../db/tx.js";
import { messagesInTopic } from "../db/queries/message-edits.js";
import { subscribedChannelIds } from "../db/queries/subscriptions.js";
import { messageIdsWithRowFor, topicFollowerIds } from "../db/queries/internal-messages.js";
import { canSeeChannelHistory } from "../lib/channels.js";
import { newThreadNotice, oldThreadNotice, resolveNotice, type MoveNoticeFacts } from "../lib/notification-bot.js";
import type { InternalMessage } from "./internal-messages.js";

export interface MoveFacts {
  realm: Realm;
  realmUrl: string;
  actor: User;
  targetMessage: Message;
  origChannel: Channel;
  origTopic: string;
  targetChannel: Channel;
  targetTopic: string;
  movedIds: readonly number[];
  propagateMode: "change_one" | "change_later" | "change_all";
  channelEdited: boolean;
  topicEdited: boolean;
  contentEdited: boolean;
  topicResolved: boolean;
  topicUnresolved: boolean;
  notifyOldThread: boolean;
  notifyNewThread: boolean;
}

/** Whether the actor can see any of these messages (upstream bulk_access_stream_messages_query). */
async function anyVisible(tx: Tx, actor: User, channel: Channel, subscribed: boolean, messages: readonly Message[]): Promise<boolean> {
  if (messages.length === 0) return false;
  if (canSeeChannelHistory(actor, channel, subscribed)) return true;
  return (await messageIdsWithRowFor(tx, actor.realm_id, actor.id, messages.map((m) => m.id))).size > 0;
}

/** The notices to send, in upstream's order: resolve notice, new-thread, old-thread. Call after the move is written. */
export async function moveNotices(tx: Tx, f: MoveFacts): Promise<InternalMessage[]> {
  const out: InternalMessage[] = [];
  const realmId = f.realm.id;
  const moved = new Set(f.movedIds);
  const mySubs = await subscribedChannelIds(tx, realmId, f.actor.id);

  let movedAllVisible = f.propagateMode === "change_all";
  if (!movedAllVisible) {
    const left = (await messagesInTopic(tx, realmId, f.origChannel.recipient_id!, f.origTopic)).filter((m) => !moved.has(m.id));
    movedAllVisible = !(await anyVisible(tx, f.actor, f.origChannel, mySubs.has(f.origChannel.id), left));
  }

  if (f.topicEdited && !f.contentEdited && !f.channelEdited && (f.topicResolved || f.topicUnresolved)) {
    // Read for everyone but the topic's followers (the default resolved_topic_notice_auto_read_policy,
    // "except_followed"), and for the actor.
    const followers = await topicFollowerIds(tx, realmId, f.origChannel.id, movedAllVisible ? f.origTopic : f.targetTopic);
    out.push({
      to: { channel: f.origChannel, topic: f.targetTopic },
      content: resolveNotice(f.actor, f.topicResolved),
      markReadFor: [f.actor.id],
      unreadOnlyFor: followers,
    });
  }

  const facts: MoveNoticeFacts = {
    actor: f.actor,
    oldChannel: f.origChannel,
    oldTopic: f.origTopic,
    newChannel: f.targetChannel,
    newTopic: f.targetTopic,
    targetMessageId: f.targetMessage.id,
    movedCount: f.movedIds.length,
    movedAllVisible,
    visiblePreexistingInNewTopic: false,
    realmUrl: f.realmUrl,
  };
  // No "moved" notice for a mere resolve or unresolve.
  if (f.notifyNewThread && (f.channelEdited || (f.topicEdited && !f.topicResolved && !f.topicUnresolved))) {
    const preexisting = (await messagesInTopic(tx, realmId, f.targetChannel.recipient_id!, f.targetTopic)).filter((m) => !moved.has(m.id));
    facts.visiblePreexistingInNewTopic = await anyVisible(tx, f.actor, f.targetChannel, mySubs.has(f.targetChannel.id), preexisting);
    out.push({ to: { channel: f.targetChannel, topic: f.targetTopic }, content: newThreadNotice(facts), markReadFor: [f.actor.id] });
  }
  if (f.notifyOldThread) {
    out.push({ to: { channel: f.origChannel, topic: f.origTopic }, content: oldThreadNotice(facts), markReadFor: [f.actor.id] });
  }
  return out;
}
