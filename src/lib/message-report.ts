/**
 * The text of a message report (upstream send_message_report and
 * send_report_confirmation_dm): the notice the notification bot posts in the
 * moderation request channel, quoting the reported message, and the reporter's
 * confirmation. Pure.
 */
import type { Channel, User } from "../db/schema.js";
import { encodeChannel, encodeHashComponent } from "./markdown/channel-links.js";
import { channelMessageUrl, silentMention } from "./notification-bot.js";

export const REPORT_TYPES = ["spam", "harassment", "inappropriate", "norms", "other"] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_REASONS: Record<ReportType, string> = {
  spam: "Spam",
  harassment: "Harassment",
  inappropriate: "Inappropriate content",
  norms: "Violates community norms",
  other: "Other reason",
};

/** Upstream Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;
/** Room left for the reporter's notes and the template around the quoted message. */
const SNIPPET_LENGTH = 10000 - MAX_REPORT_DESCRIPTION_LENGTH - 500;
const TRUNCATED = "\n[message truncated]";

export interface ReportFacts {
  reporter: Pick<User, "id" | "full_name">;
  sender: Pick<User, "id" | "full_name">;
  message: { id: number; content: string; date_sent: number; topic: string };
  /** The channel of a channel message; null for direct messages. */
  channel: Pick<Channel, "id" | "name"> | null;
  /** Direct messages: every participant, sender included (one entry for a message to oneself). */
  participants: ReadonlyArray<Pick<User, "id" | "full_name">>;
  /** Whether the direct message is a group conversation. */
  isGroup: boolean;
  reportType: ReportType;
  description: string;
  realmUrl: string;
}

/** Upstream datetime_to_global_time: a <time:…> Markdown timestamp. */
function globalTime(seconds: number): string {
  return `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;
}

/** Upstream get_user_mentions_for_display: "A", "A and B", "A, B, and C". */
function mentionList(users: ReadonlyArray<Pick<User, "id" | "full_name">>): string {
  const mentions = users.map(silentMention);
  if (mentions.length <= 1) return mentions.join("");
  if (mentions.length === 2) return `${mentions[0]} and ${mentions[1]}`;
  return `${mentions.slice(0, -1).join(", ")}, and ${mentions[mentions.length - 1]}`;
}

/** Upstream get_unused_fence: a backtick fence longer than any fence inside the content. */
function unusedFence(content: string): string {
  let length = 3;
  for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, m[1].length + 1);
  return "`".repeat(length);
}

function truncate(content: string, max: number): string {
  const chars = [...content];
  return chars.length > max ? chars.slice(0, max - TRUNCATED.length).join("") + TRUNCATED : content;
}

/** {realm url}/#narrow/dm/<sorted ids>-dm|group/near/<id> (upstream pm_message_url). */
export function directMessageUrl(realmUrl: string, participantIds: readonly number[], messageId: number): string {
  const ids = [...participantIds].sort((a, b) => a - b);
  return `${realmUrl}/#narrow/dm/${ids.join(",")}-${ids.length > 2 ? "group" : "dm"}/near/${messageId}`;
}

/** Upstream get_message_link_syntax: #**channel>topic@id**, or a Markdown link when that would break. */
function messageLinkSyntax(realmUrl: string, channel: Pick<Channel, "id" | "name">, topic: string, id: number): string {
  if (/[`>*&[\]]|\$\$/.test(channel.name) || /[`>*&[\]]|\$\$/.test(topic)) {
    const url = `${realmUrl}/#narrow/channel/${encodeChannel(channel.id, channel.name)}/topic/${encodeHashComponent(topic)}/near/${id}`;
    return `[#${channel.name} > ${topic} @ 💬](${url})`;
  }
  return `#**${channel.name}>${topic}@${id}**`;
}

/** The notice's topic: "<sender> moderation". */
export function reportTopic(sender: Pick<User, "full_name">): string {
  return `${sender.full_name} moderation`;
}

export function reportNotice(f: ReportFacts): string {
  const reporter = silentMention(f.reporter);
  const sender = silentMention(f.sender);
  const when = globalTime(f.message.date_sent);
  let header = `${reporter} reported a message sent by ${sender} at ${when}.`;
  if (!f.channel && f.isGroup) {
    header = `${reporter} reported a message sent by ${sender} to ${mentionList(f.participants.filter((u) => u.id !== f.sender.id))} at ${when}.`;
  } else if (!f.channel && f.sender.id === f.reporter.id) {
    // Reporting one's own direct message names its recipient.
    const recipient = f.participants.find((u) => u.id !== f.reporter.id) ?? f.reporter;
    header = `${reporter} reported a message sent by ${sender} to ${silentMention(recipient)} at ${when}.`;
  }
  const original = f.channel
    ? `Original message at ${messageLinkSyntax(f.realmUrl, f.channel, f.message.topic, f.message.id)}`
    : `[Original message](${directMessageUrl(f.realmUrl, f.participants.map((u) => u.id), f.message.id)})`;
  const quoted = truncate(f.message.content, SNIPPET_LENGTH);
  const fence = unusedFence(quoted);
  return `${header}\n\`\`\`quote\n**${REPORT_REASONS[f.reportType]}**. ${f.description}\n\`\`\`\n\n${fence} spoiler ${original}\n${quoted}\n${fence}\n`;
}

/** The reporter's confirmation: "You reported [a message](<url>) for <reason>." */
export function reportConfirmation(f: ReportFacts): string {
  const url = f.channel
    ? channelMessageUrl(f.realmUrl, f.channel, f.message.topic, f.message.id)
    : directMessageUrl(f.realmUrl, f.participants.map((u) => u.id), f.message.id);
  return `You reported [a message](${url}) for ${REPORT_REASONS[f.reportType].toLowerCase()}.`;
}
