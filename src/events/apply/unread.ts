/**
 * Keeping /register's unread_msgs and recent_private_conversations current, as upstream
 * apply_event does on its intermediate forms: unread_msgs is taken back to its
 * per-message form, changed, and aggregated again.
 *
 * Whether a channel message counts in `count` depends on muting, which the state knows
 * only when it also holds `subscriptions` and `user_topics`; without them messages count
 * as unmuted.
 */
import {
  aggregateUnread,
  directEntry,
  isUnmutedStreamMessage,
  rawFromAggregated,
  type ApiUnread,
  type RawUnread,
  type UnreadEntry,
} from "../initial-state/unread-model.js";
import { otherParticipants, sortConversations, type RecentConversation } from "../initial-state/recent-conversations.js";
import { sameTopic } from "../../lib/topics.js";

type State = Record<string, any>;
type Event = Record<string, any>;

/** The registered user's id: given by the caller, else the state's own user_id. */
export function viewerId(state: State, userId: number | undefined): number | undefined {
  return userId ?? (typeof state.user_id === "number" ? state.user_id : undefined);
}

function unmutedInState(state: State, streamId: number, topic: string, channelMuted?: boolean): boolean {
  const sub = (state.subscriptions as any[] | undefined)?.find((s) => s.stream_id === streamId);
  const policy = (state.user_topics as any[] | undefined)?.find(
    (t) => t.stream_id === streamId && sameTopic(String(t.topic_name), topic),
  )?.visibility_policy;
  return isUnmutedStreamMessage(channelMuted ?? sub?.is_muted === true, policy ?? 0);
}

/**
 * A `subscription` update that muted or unmuted a channel (already applied to the
 * state's subscription): its unread messages leave or rejoin `count`.
 */
export function applyChannelMuteToUnread(state: State, streamId: number, wasMuted: boolean): void {
  changeUnread(state, (raw) => {
    for (const entry of raw.entries.values()) {
      if (entry.kind !== "stream" || entry.stream_id !== streamId) continue;
      const before = unmutedInState(state, streamId, entry.topic, wasMuted);
      const after = unmutedInState(state, streamId, entry.topic);
      raw.count += Number(after) - Number(before);
    }
  });
}

function counted(state: State, entry: UnreadEntry): boolean {
  return entry.kind !== "stream" || unmutedInState(state, entry.stream_id, entry.topic);
}

/** Runs `change` on the per-message form of state.unread_msgs, then stores it aggregated again. */
function changeUnread(state: State, change: (raw: RawUnread) => void): void {
  if (!state.unread_msgs) return;
  const raw = rawFromAggregated(state.unread_msgs as ApiUnread);
  change(raw);
  // Topics in the state are already in the client's form (empty topic or its display name).
  state.unread_msgs = aggregateUnread(raw, null);
}

function removeUnread(state: State, raw: RawUnread, id: number): void {
  const entry = raw.entries.get(id);
  if (entry) {
    if (counted(state, entry)) raw.count--;
    raw.entries.delete(id);
  }
  raw.mentions.delete(id);
}

/** A `message` event: an unread message joins unread_msgs; a direct message updates its conversation. */
export function applyMessageToUnread(state: State, e: Event, userId: number | undefined): void {
  const me = viewerId(state, userId);
  const flags: string[] = e.flags ?? [];
  const message = e.message;
  if (me === undefined || !message) return;
  if (!flags.includes("read")) {
    changeUnread(state, (raw) => {
      if (raw.entries.has(message.id)) return;
      let unmuted = true;
      if (message.type === "stream") {
        raw.entries.set(message.id, { kind: "stream", stream_id: message.stream_id, topic: message.subject });
        unmuted = unmutedInState(state, message.stream_id, message.subject);
      } else {
        raw.entries.set(message.id, directEntry(me, (message.display_recipient as any[]).map((r) => r.id)));
      }
      if (unmuted) raw.count++;
      if (flags.includes("mentioned")) raw.mentions.add(message.id);
      if ((flags.includes("stream_wildcard_mentioned") || flags.includes("topic_wildcard_mentioned")) && unmuted) raw.mentions.add(message.id);
    });
  }
  if (message.type !== "stream" && Array.isArray(state.recent_private_conversations)) {
    const userIds = otherParticipants(me, (message.display_recipient as any[]).map((r) => r.id));
    const list = state.recent_private_conversations as RecentConversation[];
    const known = list.find((c) => c.user_ids.length === userIds.length && c.user_ids.every((id, i) => id === userIds[i]));
    if (known) known.max_message_id = Math.max(known.max_message_id, message.id);
    else list.push({ user_ids: userIds, max_message_id: message.id });
    sortConversations(list);
  }
}

/** `update_message_flags` for the read flag: reading removes, marking unread adds back (from message_details). */
export function applyFlagsToUnread(state: State, e: Event, userId: number | undefined): void {
  if (e.flag !== "read") return;
  if (e.op === "add") {
    changeUnread(state, (raw) => {
      // `all`: everything was marked read (POST /mark_all_as_read); the list is empty then.
      const ids = e.all === true ? [...raw.entries.keys(), ...raw.mentions] : (e.messages as number[]);
      for (const id of ids) removeUnread(state, raw, id);
    });
    return;
  }
  const me = viewerId(state, userId);
  if (e.op !== "remove" || me === undefined) return;
  changeUnread(state, (raw) => {
    for (const [key, details] of Object.entries((e.message_details ?? {}) as Record<string, any>)) {
      const id = Number(key);
      if (raw.entries.has(id)) continue;
      if (details.mentioned) raw.mentions.add(id);
      if (details.type === "stream") {
        raw.entries.set(id, { kind: "stream", stream_id: details.stream_id, topic: details.topic });
        if (details.unmuted_stream_msg) raw.count++;
      } else {
        raw.entries.set(id, directEntry(me, [...(details.user_ids as number[]), me]));
        raw.count++;
      }
    }
  });
}

/**
 * `delete_message`: deleted messages leave unread_msgs. (Upstream re-reads
 * max_message_id and recent_private_conversations here; a pure applier cannot, so
 * deleting the newest message of a conversation leaves those values behind.)
 */
export function applyDeleteToUnread(state: State, e: Event): void {
  const ids: number[] = e.message_ids ?? (e.message_id !== undefined ? [e.message_id] : []);
  changeUnread(state, (raw) => {
    for (const id of ids) removeUnread(state, raw, id);
  });
}

/** `update_message` moves: unread channel messages follow their new channel and topic. */
export function applyMoveToUnread(state: State, e: Event): void {
  if (!("new_stream_id" in e) && !("subject" in e)) return;
  changeUnread(state, (raw) => {
    for (const id of (e.message_ids ?? []) as number[]) {
      const entry = raw.entries.get(id);
      if (entry?.kind !== "stream") continue;
      raw.entries.set(id, {
        kind: "stream",
        stream_id: "new_stream_id" in e ? e.new_stream_id : entry.stream_id,
        topic: "subject" in e ? e.subject : entry.topic,
      });
    }
  });
}

/** A topic's or channel's muting changed: recount which unread channel messages count. */
export function recountUnread(state: State): void {
  changeUnread(state, (raw) => {
    raw.count = 0;
    for (const entry of raw.entries.values()) if (counted(state, entry)) raw.count++;
  });
}
