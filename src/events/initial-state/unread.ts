/**
 * unread_msgs (needs event types "message" and "update_message_flags", as upstream):
 * upstream get_raw_unread_data + aggregate_unread_data, from three queries — the newest
 * MAX_UNREAD_MESSAGES unread messages grouped by place in the statement (with their
 * recipients and group members), the muted channels and the user's topic policies.
 */
import { userTopicsOf } from "./user-topics.js";
import { mutedChannelIds, unreadGroups } from "../../db/queries/unread.js";
import { RECIPIENT_CHANNEL, RECIPIENT_DM_GROUP } from "../../db/queries/messages.js";
import { MAX_UNREAD_MESSAGES } from "./limits.js";
import type { StateFetcher } from "./types.js";
import { aggregateGroups, directEntry, isUnmutedStreamMessage, type UnreadEntry, type UnreadGroup } from "./unread-model.js";

export const fetchUnreadState: StateFetcher = async (sc, state) => {
  const { db } = sc.ctx;
  const me = sc.user.id;
  const rows = await unreadGroups(db, sc.realm.id, me, MAX_UNREAD_MESSAGES);
  const muted = await mutedChannelIds(db, sc.realm.id, me);
  const policies = new Map((await userTopicsOf(sc)).map((t) => [`${t.channel_id}:${t.topic_name.toLowerCase()}`, t.visibility_policy]));
  const groups: UnreadGroup[] = [];
  const mentions = new Set<number>();
  let total = 0;
  let count = 0;
  for (const row of rows) {
    let entry: UnreadEntry;
    let unmuted = true;
    if (row.recipient_type === RECIPIENT_CHANNEL) {
      const channelId = row.recipient_type_id;
      entry = { kind: "stream", stream_id: channelId, topic: row.topic };
      unmuted = isUnmutedStreamMessage(muted.has(channelId), policies.get(`${channelId}:${row.topic.toLowerCase()}`) ?? 0);
    } else if (row.recipient_type === RECIPIENT_DM_GROUP) {
      entry = directEntry(me, (row.member_key ?? "").split(",").filter(Boolean).map(Number));
    } else {
      // Personal recipient: the other person is the recipient when we sent it, else the sender.
      entry = { kind: "pm", other_user_id: row.sender_id === me ? row.recipient_type_id : row.sender_id };
    }
    const ids = ascendingIds(JSON.parse(row.ids) as number[]);
    groups.push({ entry, ids });
    total += ids.length;
    if (unmuted) count += ids.length;
    for (const id of JSON.parse(row.mentioned_ids) as number[]) mentions.add(id);
    // Wildcard mentions count only where the conversation is not muted.
    if (unmuted) for (const id of JSON.parse(row.wildcard_ids) as number[]) mentions.add(id);
  }
  groups.sort((a, b) => a.ids[0] - b.ids[0]);
  const emptyTopicName = sc.opts.clientCapabilities.empty_topic_name === true ? null : sc.realm.empty_topic_display_name;
  const rest = { mentions: [...mentions].sort((a, b) => a - b), count, old_unreads_missing: total === MAX_UNREAD_MESSAGES };
  state.unread_msgs = aggregateGroups(groups, rest, emptyTopicName);
};

/** The ids in ascending order (the aggregate gives them in the order the engine met them, often descending). */
function ascendingIds(ids: number[]): number[] {
  let ascending = true;
  let descending = true;
  for (let i = 1; i < ids.length && (ascending || descending); i++) {
    if (ids[i] < ids[i - 1]) ascending = false;
    else descending = false;
  }
  if (ascending) return ids;
  return descending ? ids.reverse() : ids.sort((a, b) => a - b);
}
