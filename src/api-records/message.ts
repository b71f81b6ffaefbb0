/**
 * toApiMessage: a message row and its preloaded related rows → the API message object
 * (spec 2.6). Pure: callers load senders, recipients, reactions, submessages and edits
 * in bulk first.
 */
import type { Realm, User } from "../db/schema.js";
import type { EditForRecord, MessageUser, ReactionForRecord, SubmessageForRecord } from "../db/queries/message-fetch.js";
import type { MessageForRecord } from "../db/queries/message-narrow.js";
import { AVATAR_SOURCE_HASH, avatarUrl } from "../lib/avatar.js";
import { EmailVisibility } from "../lib/roles.js";
import { displayTopic, topicResolveToggled } from "../lib/topics.js";
import { apiEmail } from "../lib/users.js";

export interface MessageRecordOptions {
  applyMarkdown: boolean;
  /** The client computes hash-based avatars itself: avatar_url is null for those senders. */
  clientHashavatar: boolean;
  allowEmptyTopicName: boolean;
}

export interface MessageRecordInput {
  message: MessageForRecord;
  sender: MessageUser;
  realm: Realm;
  /** The realm's host, for API emails. */
  host: string;
  /** Channel messages: the channel's name. */
  channelName?: string;
  /** Direct messages: every participant (sender included). */
  participants?: MessageUser[];
  /** This message's reactions, oldest first. */
  reactions: ReactionForRecord[];
  submessages: SubmessageForRecord[];
  /** This message's edits, oldest first. */
  edits: EditForRecord[];
  topicLinks: Array<{ text: string; url: string }>;
  /** The caller's flags; omitted for message events (they carry flags beside the message). */
  flags?: string[];
  /** Whether the realm shows edit history. */
  allowEditHistory: boolean;
}

/** Whether the client may compute this user's avatar from a hash of their public email. */
export function usesClientHashAvatar(user: Pick<User, "avatar_source" | "email_address_visibility" | "is_bot">): boolean {
  return user.avatar_source === AVATAR_SOURCE_HASH && (user.email_address_visibility === EmailVisibility.EVERYONE || user.is_bot === 1);
}

export function toApiMessage(input: MessageRecordInput, opts: MessageRecordOptions): Record<string, unknown> {
  const { message: m, sender, realm } = input;
  const isChannel = m.channel_id !== null;
  const topicOut = (t: string) => (isChannel ? displayTopic(t, realm, opts.allowEmptyTopicName) : t);
  const out: Record<string, unknown> = {
    id: m.id,
    sender_id: m.sender_id,
    content: opts.applyMarkdown ? m.rendered_content : m.content,
    recipient_id: m.recipient_id,
    timestamp: m.date_sent,
    client: m.sending_client,
    subject: topicOut(m.topic),
    topic_links: input.topicLinks,
    is_me_message: m.is_me_message === 1,
    // Spec 2.7: a reaction is exactly these four fields.
    reactions: input.reactions.map((r) => ({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id })),
    submessages: input.submessages.map((s) => ({ id: s.id, message_id: s.message_id, sender_id: s.sender_id, msg_type: s.msg_type, content: s.content })),
    sender_full_name: sender.full_name,
    sender_email: apiEmail(sender, input.host),
    sender_realm_str: realm.string_id,
    display_recipient: isChannel
      ? (input.channelName ?? "")
      : [...(input.participants ?? [])]
          .sort((a, b) => a.id - b.id)
          .map((u) => ({ id: u.id, email: apiEmail(u, input.host), full_name: u.full_name, is_mirror_dummy: false })),
    type: isChannel ? "stream" : "private",
    avatar_url: opts.clientHashavatar && usesClientHashAvatar(sender) ? null : avatarUrl(sender),
    content_type: opts.applyMarkdown ? "text/html" : "text/x-markdown",
  };
  if (isChannel) out.stream_id = m.channel_id;
  if (input.flags !== undefined) out.flags = input.flags;
  if (input.edits.length > 0) {
    let lastEdit = 0;
    let lastMoved = 0;
    for (const e of input.edits) {
      if (e.prev_content !== null) lastEdit = Math.max(lastEdit, e.timestamp);
      if (e.prev_channel_id !== null) lastMoved = Math.max(lastMoved, e.timestamp);
      else if (e.prev_topic !== null && e.topic !== null && !topicResolveToggled(e.topic, e.prev_topic)) lastMoved = Math.max(lastMoved, e.timestamp);
    }
    if (lastEdit) out.last_edit_timestamp = lastEdit;
    if (lastMoved) out.last_moved_timestamp = lastMoved;
    if (input.allowEditHistory) out.edit_history = [...input.edits].reverse().map((e) => editHistoryEntry(e, topicOut));
  }
  return out;
}

/** One stored edit as the message object's edit_history shows it: only the changed fields. */
export function editHistoryEntry(e: EditForRecord, topicOut: (t: string) => string): Record<string, unknown> {
  const entry: Record<string, unknown> = { user_id: e.user_id, timestamp: e.timestamp };
  if (e.prev_content !== null) {
    entry.prev_content = e.prev_content;
    entry.prev_rendered_content = e.prev_rendered_content;
  }
  if (e.prev_channel_id !== null) {
    entry.prev_stream = e.prev_channel_id;
    entry.stream = e.channel_id;
  }
  if (e.prev_topic !== null) {
    entry.prev_topic = topicOut(e.prev_topic);
    entry.topic = topicOut(e.topic ?? "");
  }
  return entry;
}
