/**
 * Building API message objects for a list of accessible messages: loads senders,
 * DM participants, channels, reactions, submessages and edits with one query per
 * table, however many messages, then calls the pure toApiMessage.
 */
import type { Realm } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { findChannelsByIds } from "../db/queries/channels.js";
import {
  dmGroupMembers,
  editsForMessages,
  reactionsForMessages,
  recipientsByIds,
  RECIPIENT_DM_GROUP,
  RECIPIENT_PERSONAL,
  submessagesForMessages,
  type MessageEditRow,
  type ReactionRow,
  type SubmessageRow,
} from "../db/queries/messages.js";
import {
  editsOfMessage,
  messageUsersByIds,
  reactionsOfMessage,
  submessagesOfMessage,
  type MessageForReader,
  type MessageUser,
} from "../db/queries/message-fetch.js";
import { toApiMessage, type MessageRecordOptions } from "../api-records/message.js";
import type { MarkdownLookups } from "./markdown/index.js";
import type { MessageForRecord } from "../db/queries/message-narrow.js";
import { DEFAULT_HISTORICAL_FLAGS, flagsToList } from "./message-flags.js";
import { loadTopicLinker } from "./message-render.js";
import { topicLinksWithJson } from "./topic-links.js";

export interface MessageWithFlags {
  message: MessageForRecord;
  /** The viewer's flag bits; null when they have no per-user row (shown as read + historical). */
  flags: number | null;
}

function groupBy<T>(rows: T[], key: (r: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** API message objects, in the order given. `withFlags` false omits flags (message events). */
export async function buildMessageRecords(
  db: Queryable,
  realm: Realm,
  host: string,
  items: readonly MessageWithFlags[],
  opts: MessageRecordOptions & {
    withFlags: boolean;
    /** Messages just sent: no reactions, submessages or edits to load. */
    isNew?: boolean;
    /** The realm's linkifiers, when the caller already has them. */
    linkifiers?: MarkdownLookups["linkifiers"];
    /** Names of the messages' channels, when the caller already loaded them (access checks). */
    channelNames?: ReadonlyMap<number, string>;
    /** Users the caller already has (a sender's own row): not loaded again. */
    knownUsers?: readonly MessageUser[];
  },
): Promise<Array<Record<string, unknown>>> {
  if (items.length === 0) return [];
  const messages = items.map((i) => i.message);
  const ids = messages.map((m) => m.id);
  const recipients = await recipientsByIds(
    db,
    realm.id,
    messages.filter((m) => m.channel_id === null).map((m) => m.recipient_id),
  );
  const recipientById = new Map(recipients.map((r) => [r.id, r]));
  const groups = await dmGroupMembers(
    db,
    realm.id,
    recipients.filter((r) => r.type === RECIPIENT_DM_GROUP).map((r) => r.type_id),
  );
  const [reactions, submessages, edits] = opts.isNew ? [[], [], []] : await relatedRows(db, realm.id, ids);
  const userIds = new Set<number>(messages.map((m) => m.sender_id));
  for (const r of recipients) if (r.type === RECIPIENT_PERSONAL) userIds.add(r.type_id);
  for (const members of groups.values()) for (const id of members) userIds.add(id);
  const users = new Map<number, MessageUser>();
  for (const u of opts.knownUsers ?? []) if (userIds.has(u.id)) users.set(u.id, u);
  const missing = [...userIds].filter((id) => !users.has(id));
  for (const u of await messageUsersByIds(db, realm.id, missing)) users.set(u.id, u);
  const channelNames = await namesOfChannels(db, realm.id, messages, opts.channelNames);
  const topicLinker = await loadTopicLinker(db, realm, opts.linkifiers, messages.filter((m) => m.channel_id !== null).map((m) => m.topic));
  // A window is mostly a few topics: look each up once, give every message its own copy.
  const linksByTopic = new Map<string, Array<{ text: string; url: string }>>();
  const topicLinks = (topic: string) => {
    let links = linksByTopic.get(topic);
    if (!links) linksByTopic.set(topic, (links = topicLinker(topic)));
    return links.map((l) => ({ ...l }));
  };
  const reactionsBy = groupBy<ReactionRow>(reactions, (r) => r.message_id);
  const submessagesBy = groupBy<SubmessageRow>(submessages, (r) => r.message_id);
  const editsBy = groupBy<MessageEditRow>(edits, (r) => r.message_id);

  return items.map(({ message: m, flags }) => {
    let participants: MessageUser[] | undefined;
    if (m.channel_id === null) {
      const r = recipientById.get(m.recipient_id);
      const ids = r?.type === RECIPIENT_DM_GROUP ? (groups.get(r.type_id) ?? []) : [...new Set([m.sender_id, r?.type_id ?? m.sender_id])];
      participants = ids.map((id) => users.get(id)).filter((u): u is MessageUser => u !== undefined);
    }
    return toApiMessage(
      {
        message: m,
        sender: users.get(m.sender_id)!,
        realm,
        host,
        channelName: m.channel_id !== null ? channelNames.get(m.channel_id) : undefined,
        participants,
        reactions: reactionsBy.get(m.id) ?? [],
        submessages: submessagesBy.get(m.id) ?? [],
        edits: editsBy.get(m.id) ?? [],
        topicLinks: m.channel_id !== null ? topicLinks(m.topic) : [],
        flags: opts.withFlags ? flagsToList(flags ?? DEFAULT_HISTORICAL_FLAGS) : undefined,
        allowEditHistory: realm.allow_edit_history === 1,
      },
      opts,
    );
  });
}

/**
 * The API object of one message as findMessageForReader loaded it (with its sender,
 * participants, related rows and the realm's linkifiers): no further statement.
 * `flags` are the viewer's bits (null: no per-user row, shown as read + historical).
 */
export function recordOfReadMessage(read: MessageForReader, realm: Realm, host: string, flags: number | null, opts: MessageRecordOptions): Record<string, unknown> {
  const m = read.message;
  return toApiMessage(
    {
      message: m,
      sender: read.sender,
      realm,
      host,
      channelName: read.channel?.name,
      participants: read.participants,
      reactions: read.reactions,
      submessages: read.submessages,
      edits: read.edits,
      topicLinks: m.channel_id !== null ? topicLinksWithJson(read.linkifiersJson, m.topic) : [],
      flags: flagsToList(flags ?? DEFAULT_HISTORICAL_FLAGS),
      allowEditHistory: realm.allow_edit_history === 1,
    },
    opts,
  );
}

/** Reactions, submessages and edits of the messages (a single message's by compiled statements). */
async function relatedRows(db: Queryable, realmId: number, ids: number[]): Promise<[ReactionRow[], SubmessageRow[], MessageEditRow[]]> {
  if (ids.length === 1) {
    const id = ids[0];
    return Promise.all([reactionsOfMessage(db, realmId, id), submessagesOfMessage(db, realmId, id), editsOfMessage(db, realmId, id)]);
  }
  return Promise.all([reactionsForMessages(db, realmId, ids), submessagesForMessages(db, realmId, ids), editsForMessages(db, realmId, ids)]);
}

/** Channel names by id: the caller's when it has all of them, else one query. */
async function namesOfChannels(db: Queryable, realmId: number, messages: readonly MessageForRecord[], known: ReadonlyMap<number, string> | undefined): Promise<ReadonlyMap<number, string>> {
  const channelIds = [...new Set(messages.map((m) => m.channel_id).filter((c): c is number => c !== null))];
  if (known && channelIds.every((id) => known.has(id))) return known;
  return new Map((await findChannelsByIds(db, realmId, channelIds)).map((c) => [c.id, c.name]));
}
