/**
 * Sending messages (upstream check_message + do_send_messages): validation in
 * upstream's order, one INSERT for the message, one batched INSERT for the per-user
 * rows with their flags, and `message` events after commit.
 */
import type { AppContext } from "../context.js";
import { claimAttachments } from "./attachments.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import type { Channel, Message, Realm, User } from "../db/schema.js";
import { withTransaction, type Queryable, type Tx } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import type { EventAudience } from "../events/publisher.js";
import type { ChatEvent } from "../events/types.js";
import { messageWriterOf } from "../db/connect.js";
import type { MessageWriter } from "../db/message-writer.js";
import type { NewMessageRow } from "../db/message-writer-protocol.js";
import { linkedPathIds } from "../lib/uploads.js";
import { isSubscribedTo } from "../db/queries/subscriptions.js";
import { insertMessage, insertUserMessagesOfMessage, setFirstMessageIdIfNull, mentionSettingsOfGroups, topicParticipantIds, usersByIds } from "../db/queries/messages.js";
import { alertWordsOfRecipients, channelSubscriberIds } from "../db/queries/message-send.js";
import { groupIdsContainingUser, groupMemberIdsRecursive, systemGroupIds } from "../db/queries/user-groups.js";
import { realmHost, realmUrl } from "../lib/realm-host.js";
import { checkRecipientsActive, directRecipientFor, resolveChannel, type ChannelIndicator } from "../lib/addressee.js";
import { normalizeContent } from "../lib/message-content.js";
import { containsAlertWord } from "../lib/alert-words.js";
import { FLAG_BITS, flagsToList } from "../lib/message-flags.js";
import { renderMessageContent, type RenderedContent } from "../lib/message-render.js";
import { buildMessageRecords } from "../lib/message-records.js";
import { usesClientHashAvatar } from "../api-records/message.js";
import { truncateTopic } from "../lib/topics.js";
import { cachedChannel, cachedChannelRecipients, cachedGroupsContaining, cachedLinkifiers } from "../lib/send-lookups.js";
import { isGuest } from "../lib/roles.js";
import { isNotificationBot } from "../lib/notification-bot.js";

export type SendTarget = { kind: "channel"; channel: ChannelIndicator; topic: string } | { kind: "direct"; recipients: User[] };

export interface SendMessageInput {
  target: SendTarget;
  content: string;
  clientName: string;
  readBySender?: boolean;
  localId?: string;
  queueId?: string;
  /** Recipients whose copy is marked read (upstream mark_as_read, e.g. the acting user of a notice). */
  markReadFor?: readonly number[];
  /** When given, only these recipients get it unread (upstream limit_unread_user_ids). */
  unreadOnlyFor?: ReadonlySet<number>;
  /** Work done in the message's own transaction (a scheduled delivery claims its row there). */
  inTransaction?: SendTransactionHooks;
}

export interface SendTransactionHooks {
  /** First statement(s) of the transaction; throwing rolls the send back. */
  before(tx: Tx): Promise<void>;
  /** After the message and its per-user rows are stored, before commit. */
  after(tx: Tx, messageId: number): Promise<void>;
}

/** The groups containing a user, directly or through subgroups (the send path reads them through a cache). */
export type GroupsOf = (user: User) => Promise<ReadonlySet<number>>;

const groupsFromDb =
  (db: Queryable): GroupsOf =>
  (user) =>
    groupIdsContainingUser(db, user.realm_id, user.id);

/** Whether the user is in the (possibly nested) group; a null setting allows everyone. */
export async function userInGroup(db: Queryable, user: User, groupId: number | null, groupsOf: GroupsOf = groupsFromDb(db)): Promise<boolean> {
  if (groupId === null) return true;
  return (await groupsOf(user)).has(groupId);
}

/** The channel's can_send_message_group (a bot may post where its owner may). */
export async function checkCanSendMessageGroup(db: Queryable, sender: User, channel: Channel, groupsOf: GroupsOf = groupsFromDb(db)): Promise<void> {
  if (await userInGroup(db, sender, channel.can_send_message_group_id, groupsOf)) return;
  const owner = sender.is_bot && sender.bot_owner_id !== null ? (await usersByIds(db, sender.realm_id, [sender.bot_owner_id]))[0] : undefined;
  if (!owner || !(await userInGroup(db, owner, channel.can_send_message_group_id, groupsOf))) {
    throw new ApiError("You do not have permission to post in this channel.");
  }
}

/** Upstream access_stream_for_send_message; the realm's system bot may post in any active channel. */
async function checkCanSendToChannel(db: Queryable, sender: User, channel: Channel, systemBot: boolean, groupsOf: GroupsOf): Promise<void> {
  const owner = sender.is_bot && sender.bot_owner_id !== null ? sender.bot_owner_id : null;
  if (!systemBot) await checkCanSendMessageGroup(db, sender, channel, groupsOf);
  const notAuthorized = () => new ApiError(`Not authorized to send to channel '${channel.name}'`);
  if (channel.deactivated) throw notAuthorized();
  if (systemBot) return;
  if (channel.is_web_public) return;
  // Public channels: anyone but guests, who must be subscribed.
  if (!channel.invite_only && !isGuest(sender)) return;
  if (await isSubscribedTo(db, sender.realm_id, sender.id, channel)) return;
  if (owner !== null && (await isSubscribedTo(db, sender.realm_id, owner, channel))) return;
  throw notAuthorized();
}

/** Upstream check_can_send_direct_message (the direct-message permission group). */
async function checkCanSendDirect(db: Queryable, realm: Realm, sender: User, recipients: readonly User[]): Promise<void> {
  if (sender.is_bot) return;
  if (recipients.every((u) => u.is_bot || u.id === sender.id)) return;
  const groupId = realm.direct_message_permission_group_id;
  if (groupId === null) return;
  const system = await systemGroupIds(db, realm.id);
  if (groupId === system.get("role:everyone")) return;
  for (const u of [...recipients, sender]) if (await userInGroup(db, u, groupId)) return;
  if (groupId === system.get("role:nobody")) throw new ApiError("You are not allowed to send direct messages in this organization.");
  throw new ApiError("This conversation does not include any users who can authorize it.");
}

/** Channels and topics with more people than this need permission for wildcard mentions. */
export const WILDCARD_MENTION_THRESHOLD = 15;

/**
 * Upstream's mention permissions: wildcard mentions in big channels (or topics with many
 * participants) need can_mention_many_users_group; group mentions need the group's
 * can_mention_group. `sender` is the message's sender, `actor` who is sending or editing.
 */
export async function checkMentionsAllowed(
  db: Queryable,
  realm: Realm,
  sender: User,
  actor: User,
  rendered: RenderedContent,
  channel: Channel | null,
  topic: string,
): Promise<void> {
  if (channel && rendered.streamWildcardMentioned) {
    const subscribers = await channelSubscriberIds(db, realm.id, channel);
    if (subscribers.length > WILDCARD_MENTION_THRESHOLD && !(await userInGroup(db, sender, realm.can_mention_many_users_group_id))) {
      throw new ApiError("You do not have permission to use channel wildcard mentions in this channel.", { code: "STREAM_WILDCARD_MENTION_NOT_ALLOWED" });
    }
  }
  if (channel && rendered.topicWildcardMentioned && channel.recipient_id !== null) {
    const participants = new Set([...(await topicParticipantIds(db, realm.id, channel.recipient_id, topic)), sender.id]);
    if (participants.size > WILDCARD_MENTION_THRESHOLD && !(await userInGroup(db, sender, realm.can_mention_many_users_group_id))) {
      throw new ApiError("You do not have permission to use topic wildcard mentions in this topic.", { code: "TOPIC_WILDCARD_MENTION_NOT_ALLOWED" });
    }
  }
  if (rendered.mentionedGroupIds.size > 0) {
    const groups = await mentionSettingsOfGroups(db, realm.id, [...rendered.mentionedGroupIds]);
    for (const g of groups) {
      if (!(await userInGroup(db, actor, g.can_mention_group_id))) {
        throw new ApiError(`You are not allowed to mention user group '${g.name ?? ""}'.`);
      }
    }
  }
}

/** Flag bits of each recipient from the rendering (mentions, wildcards, alert words). */
export async function computeFlags(
  db: Queryable,
  realm: Realm,
  content: string,
  rendered: RenderedContent,
  recipientIds: readonly number[],
  sender: User,
  opts: {
    isDirect: boolean;
    readBySender: boolean;
    topicParticipants: Set<number>;
    /** The recipients' alert words, when the caller read them with the recipients. */
    alertWords?: ReadonlyArray<{ user_id: number; word: string }>;
  },
): Promise<Map<number, number>> {
  const mentioned = new Set(rendered.mentionedUserIds);
  if (rendered.mentionedGroupIds.size > 0) {
    for (const members of (await groupMemberIdsRecursive(db, realm.id, [...rendered.mentionedGroupIds])).values()) {
      for (const id of members) mentioned.add(id);
    }
  }
  const words = opts.alertWords ?? (await alertWordsOfRecipients(db, realm.id, recipientIds));
  const lowered = content.toLowerCase();
  const alerted = new Set(
    words
      .filter((w) => w.user_id !== sender.id && containsAlertWord(lowered, w.word.toLowerCase()))
      .map((w) => w.user_id),
  );
  const out = new Map<number, number>();
  for (const id of recipientIds) {
    let bits = 0;
    if (id === sender.id && opts.readBySender) bits |= FLAG_BITS.read;
    if (mentioned.has(id)) bits |= FLAG_BITS.mentioned;
    if (rendered.streamWildcardMentioned) bits |= FLAG_BITS.stream_wildcard_mentioned;
    if (rendered.topicWildcardMentioned && opts.topicParticipants.has(id)) bits |= FLAG_BITS.topic_wildcard_mentioned;
    if (alerted.has(id)) bits |= FLAG_BITS.has_alert_word;
    if (opts.isDirect) bits |= FLAG_BITS.is_private;
    out.set(id, bits);
  }
  return out;
}

/** A message that passed every check of the send path and is rendered, ready to store. */
export interface CheckedMessage {
  content: string;
  channel: Channel | null;
  topic: string;
  rendered: RenderedContent;
}

/**
 * Upstream check_message: every check of the send path, in its order, and the rendering.
 * Scheduling a message runs it at scheduling time; delivery runs it again at sending time.
 */
export async function checkMessage(ctx: AppContext, realm: Realm, sender: User, target: SendTarget, rawContent: string, db: Queryable = ctx.db): Promise<CheckedMessage> {
  const content = normalizeContent(rawContent, realm.max_message_length);
  let channel: Channel | null = null;
  let topic = "";
  if (target.kind === "channel") {
    topic = truncateTopic(target.topic, realm.max_topic_length);
    // The channel, its recipients, the sender's groups and the linkifiers come from caches
    // (lib/send-lookups.ts), loaded from `db` on a miss.
    channel = await resolveChannel(db, realm.id, target.channel, (indicator) => cachedChannel(ctx, db, realm.id, indicator));
    await checkCanSendToChannel(db, sender, channel, isNotificationBot(realm, sender), (user) => cachedGroupsContaining(ctx, db, user));
    if (realm.mandatory_topics && topic === "") throw new ApiError("Topics are required in this organization");
  } else {
    checkRecipientsActive(target.recipients, realmHost(realm.string_id, ctx.config.externalHost));
    await checkCanSendDirect(db, realm, sender, target.recipients);
  }
  const rendered = await renderMessageContent(db, realm, realmUrl(realm.string_id, ctx.config.externalHost), content, () => cachedLinkifiers(ctx, db, realm.id));
  await checkMentionsAllowed(db, realm, sender, sender, rendered, channel, topic);
  return { content, channel, topic, rendered };
}

/** Validates and sends a message; returns its id. */
export async function doSendMessage(ctx: AppContext, realm: Realm, sender: User, input: SendMessageInput): Promise<number> {
  // Transaction hooks must run first in the transaction: check before it.
  if (input.inTransaction) return sendCheckedMessage(ctx, realm, sender, input, await checkMessage(ctx, realm, sender, input.target, input.content));
  // Otherwise, in the send's own transaction, the checks read inside it: the checks and the
  // write see one snapshot (a channel message on the message writer's thread is checked
  // just before, see storeMessage).
  return storeMessage(ctx, realm, sender, input, (tx) => checkMessage(ctx, realm, sender, input.target, input.content, tx));
}

/** Stores and announces a message checkMessage accepted; returns its id. */
export async function sendCheckedMessage(ctx: AppContext, realm: Realm, sender: User, input: SendMessageInput, checked: CheckedMessage): Promise<number> {
  return storeMessage(ctx, realm, sender, input, async () => checked);
}

/**
 * One transaction: the hooks' first statements, the checks (`check`), the rows, the events on
 * commit; or, for a channel message without hooks on SQLite, the checks and then the rows on the
 * message writer's thread.
 */
async function storeMessage(ctx: AppContext, realm: Realm, sender: User, input: SendMessageInput, check: (db: Queryable) => Promise<CheckedMessage>): Promise<number> {
  const host = realmHost(realm.string_id, ctx.config.externalHost);
  const now = nowSeconds(ctx);
  // Without hooks, a channel message goes to the message writer's thread when there is one;
  // the checks then read outside the write, as upstream's check_message does.
  const writer = input.inTransaction === undefined && input.target.kind === "channel" ? messageWriterOf(ctx.db) : undefined;
  if (writer) {
    const checked = await check(ctx.db);
    const id = await storeOnWriterThread(ctx, writer, realm, host, sender, input, checked, now);
    if (id !== undefined) return id;
    check = async () => checked;
  }

  const messageId = await withTransaction(ctx.db, async (tx) => {
    await input.inTransaction?.before(tx);
    const checked = await check(tx);
    const { content, channel } = checked;
    const { recipientId, flagsByUser } = await recipientsWithFlags(ctx, tx, realm, sender, input, checked);
    const message = await insertMessage(tx, newMessageRow(realm, sender, input, checked, recipientId, now));
    const messageId = message.id;
    await insertUserMessagesOfMessage(tx, realm.id, messageId, flagsByUser);
    if (channel && channel.first_message_id === null) await setFirstMessageIdIfNull(tx, realm.id, channel.id, messageId);
    await claimAttachments(tx, realm.id, sender, messageId, content);

    await announceMessage(tx, realm, host, sender, input, checked, message, flagsByUser, (event, userIds, audience) => sendEventOnCommit(tx, ctx, realm.id, event, userIds, audience));
    await input.inTransaction?.after(tx, messageId);
    return messageId;
    // Without hooks the send's only effects are its rows and its events on commit: it may run
    // again if its commit group rolls back (a savepoint less per send, see db/group-commit.ts).
  }, { replayable: input.inTransaction === undefined });
  return messageId;
}

type Publish = (event: ChatEvent, userIds: readonly number[], audience?: EventAudience) => void;

/** The new message's events: one per distinct flag set of its recipients, and one for all_public_streams queues. */
async function announceMessage(
  db: Queryable,
  realm: Realm,
  host: string,
  sender: User,
  input: SendMessageInput,
  { content, channel, rendered }: CheckedMessage,
  message: Message,
  flagsByUser: ReadonlyMap<number, number>,
  publish: Publish,
): Promise<void> {
  // A new message has no reactions, submessages or edits yet; the linkifiers are the rendering's.
  const [wire] = await buildMessageRecords(db, realm, host, [{ message, flags: null }], {
    applyMarkdown: true,
    clientHashavatar: false,
    allowEmptyTopicName: true,
    withFlags: false,
    isNew: true,
    linkifiers: rendered.linkifiers,
    channelNames: channel ? new Map([[channel.id, channel.name]]) : undefined,
    knownUsers: [sender],
  });
  // Recipients: exactly the users given a per-user row (subscribers, or the DM's participants),
  // grouped by their flags so each user gets their own flags.
  const byFlags = new Map<string, number[]>();
  const keyOfBits = new Map<number, string>(); // few distinct flag sets, many recipients
  for (const [userId, bits] of flagsByUser) {
    let key = keyOfBits.get(bits);
    if (key === undefined) keyOfBits.set(bits, (key = flagsToList(bits).join(",")));
    const list = byFlags.get(key);
    if (list) list.push(userId);
    else byFlags.set(key, [userId]);
  }
  for (const [key, userIds] of byFlags) {
    const internal: Record<string, unknown> = { raw_content: content, hash_avatar: usesClientHashAvatar(sender) };
    if (userIds.includes(sender.id) && input.localId !== undefined) {
      internal.local_message_id = input.localId;
      internal.sender_queue_id = input.queueId ?? null;
      internal.sender_id = sender.id;
    }
    publish({ type: "message", message: wire, flags: key === "" ? [] : key.split(","), internal_data: internal }, userIds);
  }
  // Public-channel messages also reach all_public_streams queues of non-recipients (flags []).
  // Published after the per-recipient events, so queues of recipients are skipped.
  if (channel && !channel.invite_only) {
    const internal = { raw_content: content, hash_avatar: usesClientHashAvatar(sender) };
    publish({ type: "message", message: wire, flags: [], internal_data: internal }, [], {
      publicChannelId: channel.id,
    });
  }
}

/**
 * A channel message stored by the message writer's thread (SQLite on a file: db/message-writer.ts),
 * its events published once it is durable. Undefined when the message needs the transaction:
 * the channel's first message (the channel row records it) or one linking uploaded files
 * (their rows are claimed in the same transaction).
 */
async function storeOnWriterThread(ctx: AppContext, writer: MessageWriter, realm: Realm, host: string, sender: User, input: SendMessageInput, checked: CheckedMessage, now: number): Promise<number | undefined> {
  const { content, channel } = checked;
  if (!channel || channel.first_message_id === null || linkedPathIds(content, realm.id).length > 0) return undefined;
  const { recipientId, flagsByUser } = await recipientsWithFlags(ctx, ctx.db, realm, sender, input, checked);
  const message = await writer.write(newMessageRow(realm, sender, input, checked, recipientId, now), [...flagsByUser]);
  // What the write watcher does for user_messages rows written through Kysely.
  ctx.caches.apply({ kind: "messages" });
  ctx.caches.committedWrite?.({ kind: "messages" });
  await announceMessage(ctx.db, realm, host, sender, input, checked, message, flagsByUser, (event, userIds, audience) => ctx.events.publish(realm.id, event, userIds, audience));
  return message.id;
}

/**
 * Who gets a per-user row and with which flags: the channel's active subscribers (as upstream:
 * a sender posting to a public channel they are not subscribed to gets none and reads it as a
 * historical message) or the direct message's participants (its recipient made if new).
 */
async function recipientsWithFlags(
  ctx: AppContext,
  db: Queryable,
  realm: Realm,
  sender: User,
  input: SendMessageInput,
  { content, channel, topic, rendered }: CheckedMessage,
): Promise<{ recipientId: number; flagsByUser: Map<number, number> }> {
  let recipientId: number | null = channel?.recipient_id ?? null;
  const recipients = channel ? await cachedChannelRecipients(ctx, db, realm.id, channel) : undefined;
  let recipientIds: readonly number[] = recipients?.userIds ?? [];
  if (input.target.kind === "direct") {
    const dm = await directRecipientFor(db, realm.id, sender, input.target.recipients);
    recipientId = dm.recipientId;
    recipientIds = dm.participantIds;
  }
  const participants =
    channel && rendered.topicWildcardMentioned ? new Set([...(await topicParticipantIds(db, realm.id, recipientId!, topic)), sender.id]) : new Set<number>();
  const flagsByUser = await computeFlags(db, realm, content, rendered, recipientIds, sender, {
    isDirect: channel === null,
    readBySender: input.readBySender ?? true,
    topicParticipants: participants,
    alertWords: recipients?.alertWords,
  });
  for (const [id, bits] of flagsByUser) {
    if (input.markReadFor?.includes(id) || (input.unreadOnlyFor && !input.unreadOnlyFor.has(id))) flagsByUser.set(id, bits | FLAG_BITS.read);
  }
  return { recipientId: recipientId!, flagsByUser };
}

/** The messages row of a checked message. */
function newMessageRow(realm: Realm, sender: User, input: SendMessageInput, { content, channel, topic, rendered }: CheckedMessage, recipientId: number, now: number): NewMessageRow {
  return {
    realm_id: realm.id,
    sender_id: sender.id,
    recipient_id: recipientId,
    channel_id: channel?.id ?? null,
    topic,
    content,
    rendered_content: rendered.html,
    date_sent: now,
    sending_client: input.clientName,
    is_me_message: rendered.isMeMessage ? 1 : 0,
    has_image: rendered.hasImage ? 1 : 0,
    has_link: rendered.hasLink ? 1 : 0,
  };
}
