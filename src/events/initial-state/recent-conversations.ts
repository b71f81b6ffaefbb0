/**
 * recent_private_conversations (event type "recent_private_conversations"): upstream
 * get_recent_private_conversations — the user's direct-message conversations among
 * their newest RECENT_CONVERSATIONS_LIMIT direct messages, each with the other
 * participants' ids ([] for messages to oneself) and its newest message id, newest
 * conversation first. One query.
 */
import { RECIPIENT_DM_GROUP } from "../../db/queries/messages.js";
import { recentDirectMessagesQuery } from "../../db/queries/unread.js";
import { RECENT_CONVERSATIONS_LIMIT } from "./limits.js";
import type { StateFetcher } from "./types.js";

const recentDirectMessageRows = recentDirectMessagesQuery(RECENT_CONVERSATIONS_LIMIT);

export interface RecentConversation {
  user_ids: number[];
  max_message_id: number;
}

/** The conversation's other participants, sorted. */
export function otherParticipants(userId: number, participantIds: Iterable<number>): number[] {
  return [...new Set(participantIds)].filter((id) => id !== userId).sort((a, b) => a - b);
}

export function sortConversations(list: RecentConversation[]): RecentConversation[] {
  return list.sort((a, b) => b.max_message_id - a.max_message_id);
}

export const fetchRecentConversationState: StateFetcher = async (sc, state) => {
  const me = sc.user.id;
  const rows = await recentDirectMessageRows(sc.ctx.db, sc.realm.id, me);
  const byKey = new Map<string, RecentConversation>();
  for (const row of rows) {
    const participants =
      row.recipient_type === RECIPIENT_DM_GROUP
        ? (row.member_key ?? "").split(",").filter(Boolean).map(Number)
        : [row.sender_id, row.recipient_type_id];
    const userIds = otherParticipants(me, participants);
    const key = userIds.join(",");
    const known = byKey.get(key);
    if (!known) byKey.set(key, { user_ids: userIds, max_message_id: row.id });
    else known.max_message_id = Math.max(known.max_message_id, row.id);
  }
  state.recent_private_conversations = sortConversations([...byKey.values()]);
};
