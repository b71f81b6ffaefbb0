/**
 * unread_msgs (needs event types "message" and "update_message_flags", as upstream):
 * upstream get_raw_unread_data + aggregate_unread_data, from three queries — the newest
 * MAX_UNREAD_MESSAGES unread rows (with their recipients and group members), the muted
 * channels and the user's topic policies.
 */
import { userTopicsOf } from "./user-topics.js";
import { mutedChannelIds, unreadMessageRows } from "../../db/queries/unread.js";
import { RECIPIENT_CHANNEL, RECIPIENT_DM_GROUP } from "../../db/queries/messages.js";
import { FLAG_BITS } from "../../lib/message-flags.js";
import { MAX_UNREAD_MESSAGES } from "./limits.js";
import type { StateFetcher } from "./types.js";
import { aggregateUnread, directEntry, isUnmutedStreamMessage, type RawUnread } from "./unread-model.js";

const WILDCARD_BITS = FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

export const fetchUnreadState: StateFetcher = async (sc, state) => {
  const { db } = sc.ctx;
  const rows = await unreadMessageRows(db, sc.realm.id, sc.user.id, MAX_UNREAD_MESSAGES);
  const muted = await mutedChannelIds(db, sc.realm.id, sc.user.id);
  const policies = new Map((await userTopicsOf(sc)).map((t) => [`${t.channel_id}:${t.topic_name.toLowerCase()}`, t.visibility_policy]));
  const raw: RawUnread = { entries: new Map(), mentions: new Set(), count: 0, oldUnreadsMissing: rows.length === MAX_UNREAD_MESSAGES };
  for (const row of rows) {
    let unmuted = true;
    if (row.recipient_type === RECIPIENT_CHANNEL) {
      const channelId = row.recipient_type_id;
      raw.entries.set(row.message_id, { kind: "stream", stream_id: channelId, topic: row.topic });
      unmuted = isUnmutedStreamMessage(muted.has(channelId), policies.get(`${channelId}:${row.topic.toLowerCase()}`) ?? 0);
    } else if (row.recipient_type === RECIPIENT_DM_GROUP) {
      raw.entries.set(row.message_id, directEntry(sc.user.id, (row.member_key ?? "").split(",").filter(Boolean).map(Number)));
    } else {
      // Personal recipient: the other person is the recipient when we sent it, else the sender.
      const other = row.sender_id === sc.user.id ? row.recipient_type_id : row.sender_id;
      raw.entries.set(row.message_id, { kind: "pm", other_user_id: other });
    }
    if (unmuted) raw.count++;
    if (row.flags & FLAG_BITS.mentioned) raw.mentions.add(row.message_id);
    // Wildcard mentions count only where the conversation is not muted.
    if (row.flags & WILDCARD_BITS && unmuted) raw.mentions.add(row.message_id);
  }
  const emptyTopicName = sc.opts.clientCapabilities.empty_topic_name === true ? null : sc.realm.empty_topic_display_name;
  state.unread_msgs = aggregateUnread(raw, emptyTopicName);
};
