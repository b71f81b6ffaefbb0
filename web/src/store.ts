/**
 * The app's state: built from POST /register's answer, kept current by the queue's events
 * (applyEvent), plus the messages of the narrows the user has opened. Components read it
 * and re-render when `changed()` fires (one listener: the App).
 */
import { dmUserIds, messageInNarrow, narrowKey, parseNarrowKey, sameTopic, type Narrow } from "./narrow.js";
import type { Draft, Message, Presence, Reminder, ScheduledMessage, Subscription, TopicInfo, User, UserStatus } from "./types.js";

/** Where an unread message is, for the sidebar's counts. */
export type UnreadPlace = { kind: "channel"; streamId: number; topic: string } | { kind: "dm"; key: string };

export interface MessageList {
  ids: number[];
  foundOldest: boolean;
  loading: boolean;
}

export interface TypingNotice {
  narrow: string;
  userId: number;
  until: number;
}

export class Store {
  me = { user_id: 0, full_name: "", email: "" };
  realmName = "";
  users = new Map<number, User>();
  subscriptions: Subscription[] = [];
  topics = new Map<number, TopicInfo[]>();
  unread = new Map<number, UnreadPlace>();
  messages = new Map<number, Message>();
  lists = new Map<string, MessageList>();
  presence = new Map<number, Presence>();
  /** Seconds between our clock and the server's (server minus ours). */
  clockSkew = 0;
  statuses = new Map<number, UserStatus>();
  /** "streamId:lowercased topic" → visibility_policy. */
  userTopics = new Map<string, number>();
  drafts = new Map<number, Draft>();
  scheduled: ScheduledMessage[] = [];
  reminders: Reminder[] = [];
  /** Recent direct conversations: the other participants' ids joined by "," → newest message id. */
  dmConversations = new Map<string, number>();
  typing: TypingNotice[] = [];
  emojiDataUrl = "";
  maxMessageLength = 10000;
  private listener: () => void = () => {};

  onChange(fn: () => void): void {
    this.listener = fn;
  }

  changed(): void {
    this.listener();
  }

  /** Replaces everything with a fresh /register state (messages are refetched by the caller). */
  load(s: Record<string, any>): void {
    this.me = { user_id: s.user_id, full_name: s.full_name, email: s.email };
    this.realmName = s.realm_name ?? "";
    this.users = new Map((s.realm_users ?? []).map((u: User) => [u.user_id, u]));
    this.subscriptions = [...(s.subscriptions ?? [])].sort((a: Subscription, b: Subscription) => a.name.localeCompare(b.name));
    this.unread = new Map();
    const unread = s.unread_msgs ?? {};
    for (const c of unread.streams ?? []) for (const id of c.unread_message_ids) this.unread.set(id, { kind: "channel", streamId: c.stream_id, topic: c.topic });
    for (const c of unread.pms ?? []) for (const id of c.unread_message_ids) this.unread.set(id, { kind: "dm", key: String(c.other_user_id === this.me.user_id ? "" : c.other_user_id) });
    for (const c of unread.huddles ?? []) {
      const key = String(c.user_ids_string).split(",").map(Number).filter((id) => id !== this.me.user_id).join(",");
      for (const id of c.unread_message_ids) this.unread.set(id, { kind: "dm", key });
    }
    this.clockSkew = s.server_timestamp ? s.server_timestamp - Date.now() / 1000 : 0;
    this.presence = new Map(Object.entries(s.presences ?? {}).map(([id, p]) => [Number(id), p as Presence]));
    this.statuses = new Map(Object.entries(s.user_status ?? {}).map(([id, st]) => [Number(id), st as UserStatus]));
    this.userTopics = new Map((s.user_topics ?? []).map((t: any) => [topicKey(t.stream_id, t.topic_name), t.visibility_policy]));
    this.drafts = new Map((s.drafts ?? []).map((d: Draft) => [d.id!, d]));
    this.scheduled = s.scheduled_messages ?? [];
    this.reminders = s.reminders ?? [];
    this.dmConversations = new Map((s.recent_private_conversations ?? []).map((c: any) => [c.user_ids.filter((id: number) => id !== this.me.user_id).join(","), c.max_message_id]));
    this.emojiDataUrl = s.server_emoji_data_url ?? "";
    this.maxMessageLength = s.max_message_length ?? 10000;
    this.messages = new Map();
    this.lists = new Map();
    this.topics = new Map();
    this.typing = [];
  }

  userName(id: number): string {
    return this.users.get(id)?.full_name ?? `User ${id}`;
  }

  channelName(id: number): string {
    return this.subscriptions.find((s) => s.stream_id === id)?.name ?? `channel ${id}`;
  }

  topicPolicy(streamId: number, topic: string): number {
    return this.userTopics.get(topicKey(streamId, topic)) ?? 0;
  }

  isTopicMuted(streamId: number, topic: string): boolean {
    const policy = this.topicPolicy(streamId, topic);
    const channelMuted = this.subscriptions.find((s) => s.stream_id === streamId)?.is_muted === true;
    return policy === 1 || (channelMuted && policy !== 2 && policy !== 3);
  }

  /** Unread count of a channel (muted topics left out, as upstream counts them), of a topic, or of a conversation. */
  unreadCount(match: (p: UnreadPlace) => boolean): number {
    let n = 0;
    for (const p of this.unread.values()) if (match(p)) n++;
    return n;
  }

  channelUnread(streamId: number): number {
    return this.unreadCount((p) => p.kind === "channel" && p.streamId === streamId && !this.isTopicMuted(streamId, p.topic));
  }

  topicUnread(streamId: number, topic: string): number {
    return this.unreadCount((p) => p.kind === "channel" && p.streamId === streamId && sameTopic(p.topic, topic));
  }

  dmUnread(key: string): number {
    return this.unreadCount((p) => p.kind === "dm" && p.key === key);
  }

  /** Presence of a user: "active" within the last 140 s, "idle", or "offline" (upstream's thresholds). */
  presenceOf(userId: number): "active" | "idle" | "offline" {
    const p = this.presence.get(userId);
    const now = Date.now() / 1000 + this.clockSkew;
    if (p?.active_timestamp && now - p.active_timestamp < 140) return "active";
    if (p?.idle_timestamp && now - p.idle_timestamp < 140) return "idle";
    return "offline";
  }

  /** Adds fetched messages to a narrow's list (older ones before, newer ones after). */
  addToList(narrow: Narrow, messages: Message[], foundOldest?: boolean): void {
    const key = narrowKey(narrow);
    const list = this.lists.get(key) ?? { ids: [], foundOldest: false, loading: false };
    for (const m of messages) this.messages.set(m.id, m);
    list.ids = [...new Set([...list.ids, ...messages.map((m) => m.id)])].sort((a, b) => a - b);
    if (foundOldest !== undefined) list.foundOldest = foundOldest;
    this.lists.set(key, list);
    for (const m of messages) if (m.type === "stream") this.noteTopic(m.stream_id!, m.subject, m.id);
  }

  noteTopic(streamId: number, name: string, id: number): void {
    const topics = this.topics.get(streamId);
    if (!topics) return;
    const t = topics.find((x) => sameTopic(x.name, name));
    if (t) t.max_id = Math.max(t.max_id, id);
    else topics.push({ name, max_id: id });
    topics.sort((a, b) => b.max_id - a.max_id);
  }

  /** Applies one event from the queue. */
  apply(e: Record<string, any>): void {
    const handler = HANDLERS[e.type];
    if (handler) handler(this, e);
  }
}

export function topicKey(streamId: number, topic: string): string {
  return `${streamId}:${topic.toLowerCase()}`;
}

const HANDLERS: Record<string, (s: Store, e: Record<string, any>) => void> = {
  message(s, e) {
    const m: Message = { ...e.message, flags: e.flags ?? [] };
    s.messages.set(m.id, m);
    for (const [key, list] of s.lists) {
      const narrow = parseNarrowKey(key);
      if (narrow && messageInNarrow(m, narrow, s.me.user_id) && !list.ids.includes(m.id)) list.ids.push(m.id);
    }
    if (m.type === "stream") s.noteTopic(m.stream_id!, m.subject, m.id);
    else s.dmConversations.set(dmUserIds(m, s.me.user_id).join(","), m.id);
    if (!(e.flags ?? []).includes("read")) {
      s.unread.set(m.id, m.type === "stream" ? { kind: "channel", streamId: m.stream_id!, topic: m.subject } : { kind: "dm", key: dmUserIds(m, s.me.user_id).join(",") });
    }
    // A message ends its sender's typing notice.
    s.typing = s.typing.filter((t) => t.userId !== m.sender_id);
  },
  update_message(s, e) {
    for (const id of e.message_ids ?? [e.message_id]) {
      // Unread messages move with the event, loaded or not.
      const place = s.unread.get(id);
      if (place?.kind === "channel") s.unread.set(id, { kind: "channel", streamId: e.new_stream_id ?? place.streamId, topic: e.subject ?? place.topic });
      const m = s.messages.get(id);
      if (!m) continue;
      if (id === e.message_id && e.rendered_content !== undefined) {
        m.content = e.rendered_content;
        m.last_edit_timestamp = e.edit_timestamp;
      }
      if (e.subject !== undefined) m.subject = e.subject;
      if (e.new_stream_id !== undefined) m.stream_id = e.new_stream_id;
    }
    // Moved messages: which narrows hold what is no longer known; the open one is fetched again.
    if (e.subject !== undefined || e.new_stream_id !== undefined) {
      s.lists.clear();
      s.topics.clear();
    }
  },
  delete_message(s, e) {
    const ids: number[] = e.message_ids ?? [e.message_id];
    for (const id of ids) {
      s.messages.delete(id);
      s.unread.delete(id);
    }
    for (const list of s.lists.values()) list.ids = list.ids.filter((id) => !ids.includes(id));
  },
  reaction(s, e) {
    const m = s.messages.get(e.message_id);
    if (!m) return;
    const { emoji_name, emoji_code, reaction_type, user_id } = e;
    const same = (r: Message["reactions"][number]) => r.emoji_code === emoji_code && r.reaction_type === reaction_type && r.user_id === user_id;
    m.reactions = m.reactions.filter((r) => !same(r));
    if (e.op === "add") m.reactions.push({ emoji_name, emoji_code, reaction_type, user_id });
  },
  update_message_flags(s, e) {
    if (e.flag !== "read") return;
    if (e.op === "add") {
      if (e.all) s.unread.clear();
      for (const id of e.messages) s.unread.delete(id);
    } else {
      for (const [idText, d] of Object.entries<any>(e.message_details ?? {})) {
        const id = Number(idText);
        if (d.type === "stream") s.unread.set(id, { kind: "channel", streamId: d.stream_id, topic: d.topic });
        else s.unread.set(id, { kind: "dm", key: (d.user_ids ?? []).filter((u: number) => u !== s.me.user_id).sort((a: number, b: number) => a - b).join(",") });
      }
    }
  },
  presence(s, e) {
    const p: Presence = { ...s.presence.get(e.user_id) };
    for (const c of Object.values<any>(e.presence ?? {})) {
      p.idle_timestamp = Math.max(p.idle_timestamp ?? 0, c.timestamp);
      if (c.status === "active") p.active_timestamp = Math.max(p.active_timestamp ?? 0, c.timestamp);
    }
    s.presence.set(e.user_id, p);
  },
  typing(s, e) {
    const me = s.me.user_id;
    const narrow =
      e.message_type === "stream"
        ? narrowKey({ kind: "topic", streamId: e.stream_id, topic: e.topic })
        : narrowKey({ kind: "dm", userIds: (e.recipients ?? []).map((r: any) => r.user_id).filter((id: number) => id !== me).sort((a: number, b: number) => a - b) });
    const userId = e.sender.user_id;
    s.typing = s.typing.filter((t) => !(t.userId === userId && t.narrow === narrow));
    // Upstream's clients drop a notice not renewed within 15 s.
    if (e.op === "start" && userId !== me) s.typing.push({ narrow, userId, until: Date.now() + 15000 });
  },
  user_status(s, e) {
    const { type: _t, id: _i, user_id, ...fields } = e;
    const next = { ...s.statuses.get(user_id), ...fields };
    s.statuses.set(user_id, next);
  },
  user_topic(s, e) {
    if (e.visibility_policy === 0) s.userTopics.delete(topicKey(e.stream_id, e.topic_name));
    else s.userTopics.set(topicKey(e.stream_id, e.topic_name), e.visibility_policy);
  },
  drafts(s, e) {
    if (e.op === "add") for (const d of e.drafts) s.drafts.set(d.id, d);
    if (e.op === "update") s.drafts.set(e.draft.id, e.draft);
    if (e.op === "remove") s.drafts.delete(e.draft_id);
  },
  scheduled_messages(s, e) {
    if (e.op === "add") s.scheduled = [...s.scheduled, ...e.scheduled_messages];
    if (e.op === "update") s.scheduled = s.scheduled.map((m) => (m.scheduled_message_id === e.scheduled_message.scheduled_message_id ? e.scheduled_message : m));
    if (e.op === "remove") s.scheduled = s.scheduled.filter((m) => m.scheduled_message_id !== e.scheduled_message_id);
    s.scheduled.sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  },
  reminders(s, e) {
    if (e.op === "add") s.reminders = [...s.reminders, ...e.reminders];
    if (e.op === "remove") s.reminders = s.reminders.filter((r) => r.reminder_id !== e.reminder_id);
    s.reminders.sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  },
  subscription(s, e) {
    if (e.op === "add") s.subscriptions = [...s.subscriptions, ...e.subscriptions].sort((a, b) => a.name.localeCompare(b.name));
    if (e.op === "remove") {
      const gone = new Set(e.subscriptions.map((x: Subscription) => x.stream_id));
      s.subscriptions = s.subscriptions.filter((x) => !gone.has(x.stream_id));
    }
    if (e.op === "update") {
      const sub = s.subscriptions.find((x) => x.stream_id === e.stream_id);
      if (sub) (sub as unknown as Record<string, unknown>)[e.property] = e.value;
    }
  },
  realm_user(s, e) {
    if (e.op === "add") s.users.set(e.person.user_id, e.person);
    if (e.op === "update") {
      const u = s.users.get(e.person.user_id);
      if (u) s.users.set(u.user_id, { ...u, ...e.person });
      if (e.person.user_id === s.me.user_id && e.person.full_name) s.me.full_name = e.person.full_name;
    }
    if (e.op === "remove") s.users.delete(e.person.user_id);
  },
};
