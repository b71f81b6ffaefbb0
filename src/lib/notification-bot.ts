/**
 * The realm's notification bot and the text of upstream's automatic notices.
 *
 * Upstream sends its notices as a cross-realm system bot; we keep one bot per realm
 * (a users row with is_bot=1, bot_type 1 "generic", no owner, no password, role member),
 * named by realms.notification_bot_id. Its API key is random and never handed out: it
 * is left out of realm_bots and every user list, and appears only as a system bot in
 * /register's cross_realm_bots, as upstream lists its system bots.
 *
 * Everything here is pure: identity checks and upstream's exact notice wording.
 */
import type { Channel, Realm, User } from "../db/schema.js";
import { encodeChannel, encodeHashComponent } from "./markdown/channel-links.js";

export const NOTIFICATION_BOT_NAME = "Notification Bot";

/** notification-bot@{realm host without port}. */
export function notificationBotEmail(realmHost: string): string {
  return `notification-bot@${realmHost.replace(/:\d+$/, "").toLowerCase()}`;
}

/** Whether the user is the realm's notification bot (the only system bot we have). */
export function isNotificationBot(realm: Pick<Realm, "notification_bot_id">, user: Pick<User, "id">): boolean {
  return realm.notification_bot_id !== null && realm.notification_bot_id === user.id;
}

/** Upstream silent_mention_syntax_for_user: @_**Full Name|id**. */
export function silentMention(user: Pick<User, "id" | "full_name">): string {
  return `@_**${user.full_name}|${user.id}**`;
}

const BROKEN_LINK_RE = /[`>*&[\]]|(\$\$)/g;
const ESCAPES: Record<string, string> = { "`": "&#96;", ">": "&gt;", "*": "&#42;", "&": "&amp;", $$: "&#36;&#36;", "[": "&#91;", "]": "&#93;" };

function producesBrokenLink(word: string): boolean {
  return new RegExp(BROKEN_LINK_RE.source).test(word);
}

function escapeLinkText(text: string): string {
  return text.replace(BROKEN_LINK_RE, (m) => ESCAPES[m] ?? m);
}

/** "#narrow/channel/<id>-<name>[/topic/<topic>]" (upstream channel_topic_url). */
function channelTopicUrl(channel: Pick<Channel, "id" | "name">, topic?: string): string {
  let link = `#narrow/channel/${encodeChannel(channel.id, channel.name)}`;
  if (topic) link += `/topic/${encodeHashComponent(topic)}`;
  return link;
}

/** Upstream get_stream_link_syntax: #**name**, or a markdown link when the name would break it. */
export function channelLinkSyntax(channel: Pick<Channel, "id" | "name">): string {
  if (producesBrokenLink(channel.name)) return `[#${escapeLinkText(channel.name)}](${channelTopicUrl(channel)})`;
  return `#**${channel.name}**`;
}

/** Upstream get_stream_topic_link_syntax: #**name>topic**, or the markdown-link fallback. */
export function channelTopicLinkSyntax(channel: Pick<Channel, "id" | "name">, topic: string): string {
  if (producesBrokenLink(topic) || producesBrokenLink(channel.name)) {
    const url = channelTopicUrl(channel, topic);
    return topic ? `[#${escapeLinkText(channel.name)} > ${escapeLinkText(topic)}](${url})` : `[#${escapeLinkText(channel.name)}](${url})`;
  }
  return `#**${channel.name}>${topic}**`;
}

/** Upstream stream_message_url: {realm url}/#narrow/channel/<id>-<name>/topic/<topic>/near/<message id>. */
export function channelMessageUrl(realmUrl: string, channel: Pick<Channel, "id" | "name">, topic: string, messageId: number): string {
  return `${realmUrl}/#narrow/channel/${encodeChannel(channel.id, channel.name)}/topic/${encodeHashComponent(topic)}/near/${messageId}`;
}

// ---- Message moves (upstream do_update_message / send_message_moved_breadcrumbs) ----

export interface MoveNoticeFacts {
  actor: Pick<User, "id" | "full_name">;
  oldChannel: Pick<Channel, "id" | "name">;
  oldTopic: string;
  newChannel: Pick<Channel, "id" | "name">;
  newTopic: string;
  /** The message the request named (the "[A message](…)" link points at it). */
  targetMessageId: number;
  movedCount: number;
  /** Nothing the actor can see is left in the old topic. */
  movedAllVisible: boolean;
  /** The actor can see messages that were already in the new topic. */
  visiblePreexistingInNewTopic: boolean;
  realmUrl: string;
}

/** The notice posted in the old topic. */
export function oldThreadNotice(f: MoveNoticeFacts): string {
  const user = silentMention(f.actor);
  const newLocation = channelTopicLinkSyntax(f.newChannel, f.newTopic);
  if (f.movedAllVisible) return `This topic was moved to ${newLocation} by ${user}.`;
  if (f.movedCount === 1) return `A message was moved from this topic to ${newLocation} by ${user}.`;
  return `${f.movedCount} messages were moved from this topic to ${newLocation} by ${user}.`;
}

/** The notice posted in the new topic. */
export function newThreadNotice(f: MoveNoticeFacts): string {
  const user = silentMention(f.actor);
  const oldLocation = channelTopicLinkSyntax(f.oldChannel, f.oldTopic);
  if (!f.visiblePreexistingInNewTopic && f.movedAllVisible) return `This topic was moved here from ${oldLocation} by ${user}.`;
  if (f.movedCount === 1) {
    const link = channelMessageUrl(f.realmUrl, f.newChannel, f.newTopic, f.targetMessageId);
    return `[A message](${link}) was moved here from ${oldLocation} by ${user}.`;
  }
  return `${f.movedCount} messages were moved here from ${oldLocation} by ${user}.`;
}

/** Upstream maybe_send_resolve_topic_notifications. */
export function resolveNotice(actor: Pick<User, "id" | "full_name">, resolved: boolean): string {
  return `${silentMention(actor)} has marked this topic as ${resolved ? "resolved" : "unresolved"}.`;
}

// ---- Subscriptions (upstream send_messages_for_new_subscribers) ----

/** Topic of new-channel announcements. */
export const NEW_CHANNELS_TOPIC = "new channels";

/** Upstream you_were_just_subscribed_message; channel names are sorted. */
export function youWereSubscribedNotice(actor: Pick<User, "id" | "full_name">, channelNames: Iterable<string>): string {
  const names = [...channelNames].sort(codePointCompare);
  if (names.length === 1) return `${silentMention(actor)} subscribed you to #**${names[0]}**.`;
  let message = `${silentMention(actor)} subscribed you to the following channels:\n\n`;
  for (const name of names) message += `* #**${name}**\n`;
  return message;
}

/** The announcement of channels created with announce=true. */
export function newChannelsAnnouncement(actor: Pick<User, "id" | "full_name">, channels: ReadonlyArray<Pick<Channel, "id" | "name">>): string {
  const links = channels.map(channelLinkSyntax).join(", ");
  return channels.length > 1
    ? `${silentMention(actor)} created the following channels: ${links}.`
    : `${silentMention(actor)} created a new channel ${links}.`;
}

/** Python's sorted() on strings: by code point. */
function codePointCompare(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

// ---- Reminders and scheduled messages (upstream get_message_link_syntax, failure notice) ----

/** #**channel>topic@id**, or a Markdown link to the message when the names would break it. */
export function channelMessageLinkSyntax(channel: Pick<Channel, "id" | "name">, topic: string, messageId: number): string {
  if (producesBrokenLink(topic) || producesBrokenLink(channel.name)) {
    return `[#${escapeLinkText(channel.name)} > ${escapeLinkText(topic)} @ 💬](${channelTopicUrl(channel, topic)}/near/${messageId})`;
  }
  return `#**${channel.name}>${topic}@${messageId}**`;
}

/** The notice a sender gets when their scheduled message could not be sent. */
export function scheduledMessageFailedNotice(scheduledTimestamp: number, error: string): string {
  // Upstream formats the time as Python's str() of an aware UTC datetime.
  const when = new Date(scheduledTimestamp * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, "+00:00");
  return `The message you scheduled for <time:${when}>  was not sent because of the following error:\n\n> ${error}\n\n[View scheduled messages](#scheduled)\n\n`;
}
