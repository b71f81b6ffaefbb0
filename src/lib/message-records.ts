/**
 * Building API message objects for a list of accessible messages: loads senders,
 * DM participants, channels, reactions, submessages and edits with one query per
 * table, however many messages, then calls the pure toApiMessage.
 */
import type { Channel, Realm, User } from "../db/schema.js";
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
  usersByIds,
  type MessageEditRow,
  type ReactionRow,
  type SubmessageRow,
} from "../db/queries/messages.js";
import { toApiMessage, type MessageRecordOptions } from "../api-records/message.js";
import type { MarkdownLookups } from "./markdown/index.js";
import type { Message } from "../db/schema.js";
import { DEFAULT_HISTORICAL_FLAGS, flagsToList } from "./message-flags.js";
import { loadTopicLinker } from "./message-render.js";

export interface MessageWithFlags {
  message: Message;
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
  const [reactions, submessages, edits] = opts.isNew
    ? [[], [], []]
    : await Promise.all([
        reactionsForMessages(db, realm.id, ids),
        submessagesForMessages(db, realm.id, ids),
        editsForMessages(db, realm.id, ids),
      ]);
  const userIds = new Set<number>(messages.map((m) => m.sender_id));
  for (const r of recipients) if (r.type === RECIPIENT_PERSONAL) userIds.add(r.type_id);
  for (const members of groups.values()) for (const id of members) userIds.add(id);
  const users = new Map<number, User>((await usersByIds(db, realm.id, [...userIds])).map((u) => [u.id, u]));
  const channelIds = [...new Set(messages.map((m) => m.channel_id).filter((c): c is number => c !== null))];
  const channels = new Map<number, Channel>((await findChannelsByIds(db, realm.id, channelIds)).map((c) => [c.id, c]));
  const topicLinks = await loadTopicLinker(db, realm, opts.linkifiers, messages.filter((m) => m.channel_id !== null).map((m) => m.topic));
  const reactionsBy = groupBy<ReactionRow>(reactions, (r) => r.message_id);
  const submessagesBy = groupBy<SubmessageRow>(submessages, (r) => r.message_id);
  const editsBy = groupBy<MessageEditRow>(edits, (r) => r.message_id);

  return items.map(({ message: m, flags }) => {
    let participants: User[] | undefined;
    if (m.channel_id === null) {
      const r = recipientById.get(m.recipient_id);
      const ids = r?.type === RECIPIENT_DM_GROUP ? (groups.get(r.type_id) ?? []) : [...new Set([m.sender_id, r?.type_id ?? m.sender_id])];
      participants = ids.map((id) => users.get(id)).filter((u): u is User => u !== undefined);
    }
    return toApiMessage(
      {
        message: m,
        sender: users.get(m.sender_id)!,
        realm,
        host,
        channelName: m.channel_id !== null ? channels.get(m.channel_id)?.name : undefined,
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
