/**
 * Editing, moving and deleting messages (upstream check_update_message /
 * do_update_message / do_delete_messages), with upstream's checks in its order.
 * Each edited message gets one message_edits row holding exactly what changed.
 */
import type { AppContext } from "../context.js";
import { claimAttachments } from "./attachments.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import type { Channel, Message, Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { activeRealmUsers } from "../db/queries/users.js";
import { realmUrl } from "../lib/realm-host.js";
import { subscriberIdsByChannel } from "../db/queries/subscriptions.js";
import { insertUserMessages, topicParticipantIds, usersByIds } from "../db/queries/messages.js";
import {
  deleteMessagesCascade,
  deleteUserMessages,
  insertMessageEdits,
  messagesInTopic,
  recomputeFirstMessageId,
  setUserMessageFlags,
  updateMessages,
  userMessageRows,
} from "../db/queries/message-edits.js";
import { accessChannelById, canSeeChannelHistory } from "../lib/channels.js";
import { accessMessage, canAccessChannelMessage } from "../lib/message-access.js";
import { messageEventAudience, messageReaders, moveAudience, type MessageReader } from "../lib/message-audience.js";
import { normalizeContent } from "../lib/message-content.js";
import { FLAG_BITS, flagsToList } from "../lib/message-flags.js";
import { loadTopicLinker, renderMessageContent } from "../lib/message-render.js";
import { isGuest, isModerator } from "../lib/roles.js";
import { checkTopicCharacters, isResolvedTopic, LEGACY_NO_TOPIC, RESOLVED_TOPIC_PREFIX, truncateTopic } from "../lib/topics.js";
import { checkCanSendMessageGroup, checkMentionsAllowed, computeFlags, userInGroup } from "./messages.js";
import { internalSendMessage, type InternalMessage } from "./internal-messages.js";
import { moveNotices } from "./message-move-notices.js";

export type PropagateMode = "change_one" | "change_later" | "change_all";

export interface EditMessageInput {
  channelId?: number;
  topic?: string;
  propagateMode: PropagateMode;
  content?: string;
  /** Notification-bot notice in the old topic about a move (API default false). */
  notifyOldThread?: boolean;
  /** Notification-bot notice in the new topic about a move (API default true). */
  notifyNewThread?: boolean;
}

/** Extra seconds allowed past the realm's limits (clients may show a slightly stale countdown). */
const EDIT_LIMIT_BUFFER = 20;
const RENDERED_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.has_alert_word;

/** Edits a message's content, topic and/or channel. */
export async function doEditMessage(ctx: AppContext, realm: Realm, user: User, messageId: number, input: EditMessageInput): Promise<void> {
  const notices = await withTransaction(ctx.db, async (tx): Promise<InternalMessage[]> => {
    const { message, channel: origChannel, subscribed } = await accessMessage(tx, user, messageId, { modifying: true });
    const now = nowSeconds(ctx);
    let content = input.content;
    if (content !== undefined) {
      if (!realm.allow_message_editing) throw new ApiError("Your organization has turned off message editing");
      if (message.sender_id !== user.id) throw new ApiError("You don't have permission to edit this message");
      const limit = realm.message_content_edit_limit_seconds;
      if (limit !== null && now - message.date_sent > limit + EDIT_LIMIT_BUFFER) {
        throw new ApiError("The time limit for editing this message has passed");
      }
    }
    let topic = input.topic?.trim();
    if (topic !== undefined) {
      if (topic === realm.empty_topic_display_name || topic === LEGACY_NO_TOPIC) topic = "";
      if (topic === message.topic) topic = undefined;
    }
    let channelId = input.channelId;
    if (channelId !== undefined && channelId === message.channel_id) channelId = undefined;

    if (topic === undefined && content === undefined && channelId === undefined) throw new ApiError("Nothing to change");
    if (message.channel_id === null) {
      if (channelId !== undefined) throw new ApiError("Direct messages cannot be moved to channels.");
      if (topic !== undefined) throw new ApiError("Direct messages cannot have topics.");
    }
    if (input.propagateMode !== "change_one" && topic === undefined && channelId === undefined) {
      throw new ApiError("Invalid propagate_mode without topic edit");
    }
    if (realm.mandatory_topics && topic === "") throw new ApiError("Topics are required in this organization.");
    if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === RESOLVED_TOPIC_PREFIX + realm.empty_topic_display_name) {
      throw new ApiError("General chat cannot be marked as resolved");
    }
    if (topic !== undefined) checkTopicCharacters(topic);
    if (channelId !== undefined && content !== undefined) throw new ApiError("Cannot change message content while changing channel");

    // The edit request.
    if (content !== undefined) content = normalizeContent(content.trimEnd() === "" ? "(deleted)" : content, realm.max_message_length);
    const origTopic = message.topic;
    const targetTopic = topic !== undefined ? truncateTopic(topic, realm.max_topic_length) : origTopic;
    const topicResolved =
      topic !== undefined && isResolvedTopic(targetTopic) && !isResolvedTopic(origTopic) && topic.slice(RESOLVED_TOPIC_PREFIX.length) === origTopic;
    const topicUnresolved =
      topic !== undefined && isResolvedTopic(origTopic) && !isResolvedTopic(targetTopic) && origTopic.replace(/^[✔ ]+/u, "") === targetTopic;
    const targetChannel: Channel | null = channelId !== undefined ? (await accessChannelById(tx, user, channelId)).channel : origChannel;

    if (topic !== undefined) {
      if (topicResolved || topicUnresolved) {
        if (!(await userInGroup(tx, user, realm.can_resolve_topics_group_id))) {
          throw new ApiError("You don't have permission to resolve topics in this channel.");
        }
      } else {
        if (!(await userInGroup(tx, user, realm.can_move_messages_between_topics_group_id))) {
          throw new ApiError("You don't have permission to edit this message");
        }
        const limit = realm.move_messages_within_stream_limit_seconds;
        if (limit !== null && !isModerator(user) && now - message.date_sent > limit + EDIT_LIMIT_BUFFER) {
          throw new ApiError("The time limit for editing this message's topic has passed.");
        }
      }
    }
    const rendered = content !== undefined ? await renderMessageContent(tx, realm, realmUrl(realm.string_id, ctx.config.externalHost), content) : null;
    if (rendered) {
      const sender = (await usersByIds(tx, realm.id, [message.sender_id]))[0];
      await checkMentionsAllowed(tx, realm, sender, user, rendered, origChannel, message.topic);
    }
    if (channelId !== undefined) {
      if (!(await userInGroup(tx, user, realm.can_move_messages_between_channels_group_id))) {
        throw new ApiError("You don't have permission to move this message");
      }
      await checkCanSendMessageGroup(tx, user, targetChannel!);
      const limit = realm.move_messages_between_streams_limit_seconds;
      if (limit !== null && !isModerator(user) && now - message.date_sent > limit + EDIT_LIMIT_BUFFER) {
        throw new ApiError("The time limit for editing this message's channel has passed");
      }
    }

    // Which messages move.
    const moving = topic !== undefined || channelId !== undefined;
    let moved: Message[] = [message];
    if (moving && input.propagateMode !== "change_one" && origChannel) {
      moved = await messagesInTopic(tx, realm.id, message.recipient_id, origTopic, input.propagateMode === "change_later" ? message.id : undefined);
      if (!canSeeChannelHistory(user, origChannel, subscribed)) {
        const mine = new Set((await userMessageRows(tx, moved.map((m) => m.id))).filter((r) => r.user_id === user.id).map((r) => r.message_id));
        moved = moved.filter((m) => m.id === message.id || mine.has(m.id));
      }
      if (!moved.some((m) => m.id === message.id)) moved.push(message);
    }
    const movedIds = moved.map((m) => m.id).sort((a, b) => a - b);
    const isRealMove = channelId !== undefined || (topic !== undefined && !topicResolved && !topicUnresolved);

    // Edit history: the target's row carries every change; other moved messages only the move.
    await insertMessageEdits(
      tx,
      moved.map((m) => ({
        realm_id: realm.id,
        message_id: m.id,
        user_id: user.id,
        timestamp: now,
        prev_content: m.id === message.id && content !== undefined ? message.content : null,
        prev_rendered_content: m.id === message.id && content !== undefined ? message.rendered_content : null,
        prev_topic: topic !== undefined ? m.topic : null,
        topic: topic !== undefined ? targetTopic : null,
        prev_channel_id: channelId !== undefined ? m.channel_id : null,
        channel_id: channelId !== undefined ? channelId : null,
      })),
    );
    const event: Record<string, unknown> = {
      type: "update_message",
      user_id: user.id,
      edit_timestamp: now,
      message_id: message.id,
      message_ids: moving ? movedIds : [message.id],
      rendering_only: false,
    };
    if (origChannel) {
      event.stream_name = origChannel.name;
      event.stream_id = origChannel.id;
    }

    if (content !== undefined && rendered) {
      await updateMessages(tx, realm.id, [message.id], {
        content,
        rendered_content: rendered.html,
        last_edit_time: now,
        is_me_message: rendered.isMeMessage ? 1 : 0,
        has_link: rendered.hasLink ? 1 : 0,
        has_image: rendered.hasImage ? 1 : 0,
      });
      await updateRenderedFlags(tx, realm, message, content, rendered);
      await claimAttachments(tx, realm.id, user, message.id, content);
      Object.assign(event, {
        orig_content: message.content,
        orig_rendered_content: message.rendered_content,
        content,
        rendered_content: rendered.html,
        is_me_message: rendered.isMeMessage,
      });
    }
    // Who could read the moving messages before the move (users who lose access get delete_message).
    const readersBefore = channelId !== undefined ? await messageReaders(tx, realm.id, moved, origChannel) : null;
    if (moving) {
      await updateMessages(tx, realm.id, movedIds, {
        topic: targetTopic,
        ...(channelId !== undefined ? { channel_id: channelId, recipient_id: targetChannel!.recipient_id! } : {}),
        last_edit_time: now,
        ...(isRealMove ? { last_moved_time: now } : {}),
      });
      event.orig_subject = origTopic;
      event.propagate_mode = input.propagateMode;
      if (topic !== undefined) {
        event.subject = targetTopic;
        event.topic_links = (await loadTopicLinker(tx, realm, undefined, [targetTopic]))(targetTopic);
      }
      if (channelId !== undefined) {
        event.new_stream_id = channelId;
        await moveUserMessages(tx, realm, movedIds, targetChannel!);
      }
    }
    // Recipients: the users who can read the messages now (the read paths' rule).
    const readersNow = await messageReaders(tx, realm.id, moving ? moved : [message], targetChannel);
    if (readersBefore && origChannel) {
      const { readers, lost } = moveAudience(realm.id, targetChannel!, readersBefore, readersNow);
      sendEditEvents(tx, ctx, realm, event, message.id, moving, readers);
      sendLostAccessEvents(tx, ctx, realm, { stream_id: origChannel.id, topic: origTopic }, lost);
    } else {
      sendEditEvents(tx, ctx, realm, event, message.id, moving, readersNow);
    }
    if (channelId !== undefined && origChannel) {
      await updateFirstMessageIds(tx, ctx, realm, [origChannel, targetChannel!]);
    }
    if (!moving || !origChannel) return [];
    return moveNotices(tx, {
      realm,
      realmUrl: realmUrl(realm.string_id, ctx.config.externalHost),
      actor: user,
      targetMessage: message,
      origChannel,
      origTopic,
      targetChannel: targetChannel!,
      targetTopic,
      movedIds,
      propagateMode: input.propagateMode,
      channelEdited: channelId !== undefined,
      topicEdited: topic !== undefined,
      contentEdited: content !== undefined,
      topicResolved,
      topicUnresolved,
      notifyOldThread: input.notifyOldThread ?? false,
      notifyNewThread: input.notifyNewThread ?? true,
    });
  });
  // The notification bot's notices, once the move is committed (upstream's order).
  for (const notice of notices) await internalSendMessage(ctx, realm, notice);
}

/** The fields of a content edit: only users who can read the edited message itself get them. */
const CONTENT_EDIT_KEYS = ["orig_content", "orig_rendered_content", "content", "rendered_content", "prev_rendered_content_version", "is_me_message"];

/**
 * One update_message per group of readers with the same view: each reader gets the moved
 * ids they can read and their own flags. A reader who cannot read the edited message
 * itself (protected history: they received only later messages of the topic) gets the
 * move about their first readable message, without the content fields.
 */
function sendEditEvents(tx: Tx, ctx: AppContext, realm: Realm, event: Record<string, unknown>, targetId: number, moving: boolean, readers: ReadonlyMap<number, MessageReader>): void {
  const batches = new Map<string, { event: Record<string, unknown>; userIds: number[] }>();
  for (const reader of readers.values()) {
    const seesTarget = reader.messageIds.includes(targetId);
    const about = seesTarget ? targetId : reader.messageIds[0];
    const rowFlags = reader.flags.get(about);
    const own: Record<string, unknown> = {
      ...event,
      message_id: about,
      message_ids: moving ? reader.messageIds : [targetId],
      // A reader without a row sees the message as read (upstream's historical default).
      flags: rowFlags === undefined ? ["read"] : flagsToList(rowFlags),
    };
    if (!seesTarget) for (const key of CONTENT_EDIT_KEYS) delete own[key];
    const key = JSON.stringify(own);
    const batch = batches.get(key) ?? { event: own, userIds: [] };
    batch.userIds.push(reader.userId);
    batches.set(key, batch);
  }
  for (const { event: e, userIds } of batches.values()) sendEventOnCommit(tx, ctx, realm.id, e as { type: string }, userIds);
}

/** After a move to another channel: users who could read moved messages and no longer can lose them. */
function sendLostAccessEvents(tx: Tx, ctx: AppContext, realm: Realm, where: { stream_id: number; topic: string }, lost: ReadonlyMap<number, number[]>): void {
  const batches = new Map<string, number[]>();
  for (const [userId, ids] of lost) {
    const key = ids.join(",");
    batches.set(key, [...(batches.get(key) ?? []), userId]);
  }
  for (const [key, userIds] of batches) {
    const ids = key.split(",").map(Number);
    sendEventOnCommit(tx, ctx, realm.id, { type: "delete_message", message_type: "stream", message_ids: ids, stream_id: where.stream_id, topic: where.topic }, userIds);
  }
}

/** Recomputes mention and alert-word flags of a message's rows after a content edit. */
async function updateRenderedFlags(tx: Tx, realm: Realm, message: Message, content: string, rendered: NonNullable<Awaited<ReturnType<typeof renderMessageContent>>>): Promise<void> {
  const rows = await userMessageRows(tx, [message.id]);
  if (rows.length === 0) return;
  const sender = (await usersByIds(tx, realm.id, [message.sender_id]))[0];
  const participants =
    message.channel_id !== null && rendered.topicWildcardMentioned
      ? new Set([...(await topicParticipantIds(tx, realm.id, message.recipient_id, message.topic)), message.sender_id])
      : new Set<number>();
  const computed = await computeFlags(tx, realm, content, rendered, rows.map((r) => r.user_id), sender, {
    isDirect: false,
    readBySender: false,
    topicParticipants: participants,
  });
  const byFlags = new Map<number, number[]>();
  for (const r of rows) {
    const next = (r.flags & ~RENDERED_BITS) | (computed.get(r.user_id)! & RENDERED_BITS);
    if (next !== r.flags) byFlags.set(next, [...(byFlags.get(next) ?? []), r.user_id]);
  }
  for (const [flags, userIds] of byFlags) await setUserMessageFlags(tx, message.id, userIds, flags);
}

/**
 * After a move to another channel: its subscribers get (read) rows for the messages;
 * users who may not read the new channel lose theirs.
 */
async function moveUserMessages(tx: Tx, realm: Realm, ids: number[], target: Channel): Promise<void> {
  const rows = await userMessageRows(tx, ids);
  const holders = [...new Set(rows.map((r) => r.user_id))];
  const subscribers = new Set((await subscriberIdsByChannel(tx, realm.id, [target.id])).get(target.id) ?? []);
  const users = await usersByIds(tx, realm.id, holders);
  const losing = users.filter((u) => !canAccessChannelMessage(u, target, subscribers.has(u.id), true)).map((u) => u.id);
  await deleteUserMessages(tx, ids, losing);
  const have = new Set(rows.map((r) => `${r.user_id}:${r.message_id}`));
  const fresh: Array<{ realm_id: number; user_id: number; message_id: number; flags: number }> = [];
  for (const userId of subscribers) {
    for (const id of ids) if (!have.has(`${userId}:${id}`)) fresh.push({ realm_id: realm.id, user_id: userId, message_id: id, flags: FLAG_BITS.read });
  }
  await insertUserMessages(tx, fresh);
}

/** Recomputes first_message_id of channels; changed values are announced to those who can see the channel. */
async function updateFirstMessageIds(tx: Tx, ctx: AppContext, realm: Realm, channels: Channel[]): Promise<void> {
  for (const channel of channels) {
    const first = await recomputeFirstMessageId(tx, realm.id, channel.id);
    if (first === channel.first_message_id) continue;
    const recipients = await channelAudience(tx, realm, channel);
    sendEventOnCommit(tx, ctx, realm.id, { type: "stream", op: "update", property: "first_message_id", value: first, stream_id: channel.id, name: channel.name }, recipients);
  }
}

/** Users who can see the channel: its subscribers, plus every non-guest when it is public. */
async function channelAudience(tx: Tx, realm: Realm, channel: Channel): Promise<number[]> {
  const subscribers = (await subscriberIdsByChannel(tx, realm.id, [channel.id])).get(channel.id) ?? [];
  if (channel.invite_only) return subscribers;
  const everyone = await activeRealmUsers(tx, realm.id);
  return [...new Set([...subscribers, ...everyone.filter((u) => !isGuest(u) || channel.is_web_public).map((u) => u.id)])];
}

/** Deletes a message (upstream validate_can_delete_message + do_delete_messages). */
export async function doDeleteMessage(ctx: AppContext, realm: Realm, user: User, messageId: number): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const { message, channel } = await accessMessage(tx, user, messageId, { modifying: true });
    if (!(await userInGroup(tx, user, realm.can_delete_any_message_group_id))) {
      const sender = message.sender_id === user.id ? user : (await usersByIds(tx, realm.id, [message.sender_id]))[0];
      const cannot = () => new ApiError("You don't have permission to delete this message");
      if (sender.id !== user.id && sender.bot_owner_id !== user.id) throw cannot();
      if (!(await userInGroup(tx, user, realm.can_delete_own_message_group_id))) throw cannot();
      const limit = realm.message_content_delete_limit_seconds;
      if (limit !== null && nowSeconds(ctx) - message.date_sent > limit) {
        throw new ApiError("The time limit for deleting this message has passed");
      }
    }
    // Recipients: the users who can read it (the read paths' rule), decided before it goes.
    const audience = await messageEventAudience(tx, realm.id, message, channel);
    await deleteMessagesCascade(tx, realm.id, [message.id]);
    const event: Record<string, unknown> = { type: "delete_message", message_type: channel ? "stream" : "private", message_ids: [message.id] };
    if (channel) {
      event.stream_id = channel.id;
      event.topic = message.topic;
    }
    sendEventOnCommit(tx, ctx, realm.id, event as { type: string }, audience);
    if (channel && channel.first_message_id === message.id) await updateFirstMessageIds(tx, ctx, realm, [channel]);
  });
}

