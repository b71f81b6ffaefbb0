/**
 * unread_msgs (needs event types "message" and "update_message_flags", as upstream):
 * upstream get_raw_unread_data + aggregate_unread_data: the newest MAX_UNREAD_MESSAGES
 * unread messages from where the user's unread rows begin (caches/unread-floors.ts), as one
 * JSON value, grouped here by place, with each message's recipient, sender and topic from
 * the message facts cache (one more statement for the ones it misses) and what each
 * recipient stands for from the realm's recipients cache; the muted channels (from the
 * subscription rows the subscription state shares); the user's topic policies.
 */
import { userTopicsOf } from "./user-topics.js";
import { messageFactRows, unreadMessagesQuery, type UnreadMessageRow } from "../../db/queries/unread.js";
import type { MessageFactRow, MessageFacts } from "../../caches/message-facts.js";
import { integerListParam } from "../../db/dialect.js";
import { subscriptionRowsOf } from "./subscriptions.js";
import { maxMessageIdForUser } from "../../db/queries/users.js";
import { RECIPIENT_CHANNEL, RECIPIENT_DM_GROUP } from "../../db/queries/messages.js";
import { FLAG_BITS } from "../../lib/message-flags.js";
import { MAX_UNREAD_MESSAGES } from "./limits.js";
import type { StateFetcher } from "./types.js";
import { aggregateGroups, directEntry, isUnmutedStreamMessage, type UnreadEntry, type UnreadGroup } from "./unread-model.js";

const unreadMessages = unreadMessagesQuery(MAX_UNREAD_MESSAGES);
const WILDCARD_BITS = FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/** The unread messages of one place (exact topic, one conversation) and whether they count. */
interface Place {
  group: UnreadGroup;
  unmuted: boolean;
}

export const fetchUnreadState: StateFetcher = async (sc, state) => {
  const { db } = sc.ctx;
  const me = sc.user.id;
  const floors = sc.ctx.caches.unreadFloors;
  const floorRead = floors.begin(me);
  const [{ rows: json }] = await unreadMessages(db, sc.realm.id, me, floorRead.floor);
  const rows = ascendingRows(JSON.parse(json) as UnreadMessageRow[]);
  if (rows.length < MAX_UNREAD_MESSAGES) {
    // Nothing unread below the oldest found; with nothing unread, below the newest row.
    const floor = rows.length > 0 ? rows[0][0] : await sc.ctx.caches.maxMessageIds.get(sc.realm.id, me, () => maxMessageIdForUser(db, sc.realm.id, me));
    floors.learn(floorRead, floor);
  }
  const facts = await sc.ctx.caches.messageFacts.covering(
    sc.realm.id,
    rows.map((row) => row[0]),
    async (missing) => JSON.parse((await messageFactRows(db, sc.realm.id, integerListParam(db, missing)))[0].rows) as MessageFactRow[],
  );
  const muted = new Set((await subscriptionRowsOf(sc)).filter((sub) => sub.active === 1 && sub.is_muted === 1).map((sub) => sub.channel_id));
  const policies = new Map((await userTopicsOf(sc)).map((t) => [`${t.channel_id}:${t.topic_name.toLowerCase()}`, t.visibility_policy]));
  const recipients = await sc.ctx.caches.recipients.covering(db, sc.realm.id, recipientIdsOf(facts));
  const places = new Map<string, Place>();
  // In ascending id order: each place's ids, the places (by their first id) and the mentions come sorted.
  const groups: UnreadGroup[] = [];
  const mentions: number[] = [];
  let count = 0;
  for (const [id, flags] of rows) {
    const fact = facts.get(id);
    // Deleted since its row was read.
    if (fact === undefined) continue;
    const [recipientId, senderId, topic] = fact;
    const { type, typeId, memberKey } = recipients.get(recipientId)!;
    // Personal messages: the other person is the recipient when we sent it, else the sender.
    const key = type === RECIPIENT_CHANNEL ? `s${typeId}\u0000${topic}` : type === RECIPIENT_DM_GROUP ? `h${typeId}` : `p${senderId === me ? typeId : senderId}`;
    let place = places.get(key);
    if (place === undefined) {
      let entry: UnreadEntry;
      let unmuted = true;
      if (type === RECIPIENT_CHANNEL) {
        entry = { kind: "stream", stream_id: typeId, topic };
        unmuted = isUnmutedStreamMessage(muted.has(typeId), policies.get(`${typeId}:${topic.toLowerCase()}`) ?? 0);
      } else if (type === RECIPIENT_DM_GROUP) {
        entry = directEntry(me, (memberKey ?? "").split(",").filter(Boolean).map(Number));
      } else {
        entry = { kind: "pm", other_user_id: senderId === me ? typeId : senderId };
      }
      place = { group: { entry, ids: [] }, unmuted };
      places.set(key, place);
      groups.push(place.group);
    }
    place.group.ids.push(id);
    if (place.unmuted) count++;
    // Wildcard mentions count only where the conversation is not muted.
    if ((flags & FLAG_BITS.mentioned) !== 0 || (place.unmuted && (flags & WILDCARD_BITS) !== 0)) mentions.push(id);
  }
  const emptyTopicName = sc.opts.clientCapabilities.empty_topic_name === true ? null : sc.realm.empty_topic_display_name;
  const rest = { mentions, count, old_unreads_missing: rows.length === MAX_UNREAD_MESSAGES };
  state.unread_msgs = aggregateGroups(groups, rest, emptyTopicName);
};

/** The recipients of the unread messages (the facts hold those of the rows read and no other). */
function recipientIdsOf(facts: ReadonlyMap<number, MessageFacts>): Set<number> {
  const ids = new Set<number>();
  for (const [recipientId] of facts.values()) ids.add(recipientId);
  return ids;
}

/** The rows in ascending id order (the aggregate gives them in the order the engine met them, usually descending). */
function ascendingRows(rows: UnreadMessageRow[]): UnreadMessageRow[] {
  let ascending = true;
  let descending = true;
  for (let i = 1; i < rows.length && (ascending || descending); i++) {
    if (rows[i][0] < rows[i - 1][0]) ascending = false;
    else descending = false;
  }
  if (ascending) return rows;
  return descending ? rows.reverse() : rows.sort((a, b) => a[0] - b[0]);
}
