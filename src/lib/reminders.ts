/**
 * Reminder text (upstream get_reminder_formatted_content, feature level 415): what the
 * notification bot sends, linking and quoting the message the reminder is about.
 */
import { ApiError } from "../errors.js";
import type { Channel, Message, Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { dmGroupMembers, recipientsByIds, RECIPIENT_PERSONAL, usersByIds } from "../db/queries/messages.js";
import type { AccessedMessage } from "./message-access.js";
import { encodeChannel, encodeHashComponent } from "./markdown/channel-links.js";
import { truncateContent } from "./message-content.js";
import { channelMessageLinkSyntax, silentMention } from "./notification-bot.js";

/** Longest reminder note (upstream's MAX_REMINDER_NOTE_LENGTH server setting; its default is not documented). */
export const MAX_REMINDER_NOTE_LENGTH = 1000;

/** Upstream normalize_note_text: trailing whitespace and leading newlines removed, length capped. */
export function normalizeReminderNote(note: string): string {
  const body = note.trimEnd().replace(/^\n+/, "");
  if ([...body].length > MAX_REMINDER_NOTE_LENGTH) throw new ApiError(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  return body;
}

/** A fence of backticks longer than any fence-like run at the start of a line of `text` (at least 3). */
function unusedFence(text: string): string {
  let length = 3;
  for (const m of text.matchAll(/^[ \t]*(`{3,})/gm)) length = Math.max(length, m[1]!.length + 1);
  return "`".repeat(length);
}

export interface ReminderTarget {
  message: Pick<Message, "id" | "content" | "topic">;
  sender: Pick<User, "id" | "full_name">;
  /** The channel of a channel message; null for a direct message. */
  channel: Pick<Channel, "id" | "name"> | null;
  /** Everyone in a direct conversation (sender included). */
  participantIds: readonly number[];
}

/** Upstream message_link_url: the message's permanent link. */
export function messageUrl(realmUrl: string, t: ReminderTarget): string {
  if (t.channel) return `${realmUrl}/#narrow/channel/${encodeChannel(t.channel.id, t.channel.name)}/topic/${encodeHashComponent(t.message.topic)}/near/${t.message.id}`;
  const ids = [...new Set(t.participantIds)].sort((a, b) => a - b);
  return `${realmUrl}/#narrow/dm/${ids.join(",")}${ids.length >= 3 ? "-group" : ""}/near/${t.message.id}`;
}

export function reminderContent(realmUrl: string, t: ReminderTarget, note: string | null, maxMessageLength: number): string {
  const normalized = note ? normalizeReminderNote(note) : "";
  const noteSuffix = normalized ? ` Note:\n > ${normalized}` : "";
  let content = t.channel
    ? `You requested a reminder for ${channelMessageLinkSyntax(t.channel, t.message.topic, t.message.id)}.${noteSuffix}`
    : `You requested a reminder for the following direct message.${noteSuffix}`;
  content += "\n\n";
  const who = silentMention(t.sender);
  const url = messageUrl(realmUrl, t);
  if (t.message.content.startsWith("/poll")) return `${content}${who} [sent](${url}) a poll.`;
  if (t.message.content.startsWith("/todo")) return `${content}${who} [sent](${url}) a todo list.`;
  content += `${who} [said](${url}):\n`;
  const fence = unusedFence(t.message.content);
  const frame = (body: string) => `${fence}quote\n${body}\n${fence}`;
  const room = maxMessageLength - [...(content + frame(""))].length;
  return content + frame(truncateContent(t.message.content, room));
}

/** What a reminder links and quotes, from a message the user can read. */
export async function reminderTargetOf(db: Queryable, realm: Realm, accessed: AccessedMessage): Promise<ReminderTarget> {
  const { message, channel } = accessed;
  const [author] = await usersByIds(db, realm.id, [message.sender_id]);
  let participantIds: number[] = [];
  if (!channel) {
    const [recipient] = await recipientsByIds(db, realm.id, [message.recipient_id]);
    if (recipient?.type === RECIPIENT_PERSONAL) participantIds = [message.sender_id, recipient.type_id];
    else if (recipient) participantIds = (await dmGroupMembers(db, realm.id, [recipient.type_id])).get(recipient.type_id) ?? [message.sender_id];
  }
  return { message, sender: author!, channel, participantIds };
}
