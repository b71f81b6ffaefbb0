/**
 * The unread_msgs structure of /register, as upstream: an intermediate per-message form
 * (easy to change as events arrive) and its aggregation into the API's lists. Shared by
 * the initial state (src/events/initial-state/unread.ts) and the event appliers.
 */

export type UnreadEntry =
  | { kind: "stream"; stream_id: number; topic: string }
  | { kind: "pm"; other_user_id: number }
  | { kind: "huddle"; user_ids_string: string };

export interface RawUnread {
  /** Message id → where it is. */
  entries: Map<number, UnreadEntry>;
  mentions: Set<number>;
  /** Unread direct messages plus unread channel messages that are not muted. */
  count: number;
  oldUnreadsMissing: boolean;
}

export interface ApiUnread {
  pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }>;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
  count: number;
  old_unreads_missing: boolean;
}

/** Topic visibility policies (user_topics.visibility_policy). */
export const VisibilityPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

/**
 * Whether a channel message counts as unmuted: a topic that is not muted in an unmuted
 * channel, or an unmuted or followed topic in a muted channel.
 */
export function isUnmutedStreamMessage(channelMuted: boolean, topicPolicy: number): boolean {
  if (channelMuted) return topicPolicy === VisibilityPolicy.UNMUTED || topicPolicy === VisibilityPolicy.FOLLOWED;
  return topicPolicy !== VisibilityPolicy.MUTED;
}

/** A direct message's entry from its participants (self included or not) as seen by `userId`. */
export function directEntry(userId: number, participantIds: readonly number[]): UnreadEntry {
  const others = [...new Set(participantIds)].filter((id) => id !== userId);
  if (others.length <= 1) return { kind: "pm", other_user_id: others[0] ?? userId };
  return { kind: "huddle", user_ids_string: [...others, userId].sort((a, b) => a - b).join(",") };
}

const ascending = (a: number, b: number) => a - b;
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Unread messages of one place (each message in one group), ids ascending. */
export interface UnreadGroup {
  entry: UnreadEntry;
  ids: number[];
}

/**
 * Upstream aggregate_unread_data. Channel messages group by (channel, topic compared
 * case-insensitively), the group named by its oldest message's topic; clients without the
 * empty_topic_name capability see `emptyTopicName` for the empty topic.
 */
export function aggregateUnread(raw: RawUnread, emptyTopicName: string | null): ApiUnread {
  const groups = [...raw.entries.keys()].sort(ascending).map((id): UnreadGroup => ({ entry: raw.entries.get(id)!, ids: [id] }));
  return aggregateGroups(groups, { mentions: [...raw.mentions].sort(ascending), count: raw.count, old_unreads_missing: raw.oldUnreadsMissing }, emptyTopicName);
}

/**
 * aggregateUnread from messages already grouped (by the database, or one message per
 * group): groups of the same conversation merge. `groups` must come in ascending order of
 * their first id (which names a topic), and their id lists become the result's (not copied).
 */
export function aggregateGroups(groups: readonly UnreadGroup[], rest: Pick<ApiUnread, "mentions" | "count" | "old_unreads_missing">, emptyTopicName: string | null): ApiUnread {
  const pms = new Map<number, IdList>();
  const streams = new Map<string, IdList & { stream_id: number; topic: string }>();
  const huddles = new Map<string, IdList>();
  for (const { entry: e, ids } of groups) {
    if (e.kind === "pm") {
      const list = pms.get(e.other_user_id);
      if (list) appendIds(list, ids);
      else pms.set(e.other_user_id, { ids, sorted: true });
    } else if (e.kind === "huddle") {
      const list = huddles.get(e.user_ids_string);
      if (list) appendIds(list, ids);
      else huddles.set(e.user_ids_string, { ids, sorted: true });
    } else {
      const topic = e.topic === "" && emptyTopicName !== null ? emptyTopicName : e.topic;
      const key = `${e.stream_id}\u0000${topic.toLowerCase()}`;
      const bucket = streams.get(key);
      if (bucket) appendIds(bucket, ids);
      else streams.set(key, { stream_id: e.stream_id, topic, ids, sorted: true });
    }
  }
  return {
    pms: [...pms.entries()].sort((a, b) => a[0] - b[0]).map(([other, list]) => ({ other_user_id: other, sender_id: other, unread_message_ids: idsOf(list) })),
    streams: [...streams.values()]
      .sort((a, b) => a.stream_id - b.stream_id || compareText(a.topic.toLowerCase(), b.topic.toLowerCase()))
      .map((b) => ({ stream_id: b.stream_id, topic: b.topic, unread_message_ids: idsOf(b) })),
    huddles: [...huddles.entries()].sort((a, b) => compareText(a[0], b[0])).map(([key, list]) => ({ user_ids_string: key, unread_message_ids: idsOf(list) })),
    ...rest,
  };
}

/** A conversation's ids while groups merge into it: sorted again only if a merge broke the order. */
interface IdList {
  ids: number[];
  sorted: boolean;
}

function appendIds(list: IdList, ids: readonly number[]): void {
  if (ids.length > 0 && list.ids.length > 0 && ids[0] < list.ids[list.ids.length - 1]) list.sorted = false;
  for (const id of ids) list.ids.push(id);
}

function idsOf(list: IdList): number[] {
  return list.sorted ? list.ids : list.ids.sort(ascending);
}

/** The per-message form of an aggregated unread_msgs (the inverse of aggregateUnread). */
export function rawFromAggregated(api: ApiUnread): RawUnread {
  const entries = new Map<number, UnreadEntry>();
  for (const p of api.pms) for (const id of p.unread_message_ids) entries.set(id, { kind: "pm", other_user_id: p.other_user_id });
  for (const h of api.huddles) for (const id of h.unread_message_ids) entries.set(id, { kind: "huddle", user_ids_string: h.user_ids_string });
  for (const s of api.streams) for (const id of s.unread_message_ids) entries.set(id, { kind: "stream", stream_id: s.stream_id, topic: s.topic });
  return { entries, mentions: new Set(api.mentions), count: api.count, oldUnreadsMissing: api.old_unreads_missing };
}
