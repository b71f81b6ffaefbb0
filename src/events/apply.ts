/**
 * applyEvent(state, event): the client-side meaning of each event on /register state,
 * used by /register (events that arrived during the fetch) and by the event-consistency
 * tests (register → action → apply events → compare with a fresh register).
 */
import type { ChatEvent } from "./types.js";
import { applyChannelMuteToUnread, applyDeleteToUnread, applyFlagsToUnread, applyMessageToUnread, applyMoveToUnread, recountUnread } from "./apply/unread.js";
import { applyLegacyDisplaySettings, applyLegacyNotificationSettings, applyUserSettings } from "./apply/settings.js";
import { applyUserGroup, dropDeactivatedUserFromGroups } from "./apply/user-groups.js";
import { applyNavigationView } from "./apply/navigation-views.js";
import { applyReminders, applyScheduledMessages } from "./apply/scheduled-messages.js";
import { sameTopic } from "../lib/topics.js";

type State = Record<string, any>;
type Applier = (state: State, event: Record<string, any>, opts: ApplyOptions) => void;

/** How the state was registered, where it changes what an event means. */
export interface ApplyOptions {
  /** include_subscribers: subscription objects carry `subscribers`. */
  includeSubscribers?: boolean;
  /** The registered user (direct-message conversations are named by the other participants). */
  userId?: number;
}

const byUserId = (list: any[] | undefined, id: number) => list?.find((u) => u.user_id === id);
const sortByName = (list: any[]) => list.sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0));

const appliers: Record<string, Applier> = {
  heartbeat: () => {},
  typing: () => {},
  typing_edit_message: () => {},
  restart: () => {},

  presence(state, e) {
    if (!state.presences) return;
    if (e.presences) {
      Object.assign(state.presences, e.presences);
      return;
    }
    const legacy = e.presence?.website;
    if (!legacy) return;
    // Slim clients get no email: their presences are keyed by user id, modern format.
    if (typeof e.email !== "string") {
      const key = String(e.user_id);
      const entry = state.presences[key] ?? { active_timestamp: legacy.timestamp, idle_timestamp: legacy.timestamp };
      if (legacy.status === "active") entry.active_timestamp = legacy.timestamp;
      entry.idle_timestamp = Math.max(entry.idle_timestamp, legacy.timestamp);
      state.presences[key] = entry;
      return;
    }
    const { pushable: _p, ...aggregated } = legacy;
    state.presences[e.email] = { aggregated, website: legacy };
  },

  realm(state, e) {
    if (e.op === "update") state[`realm_${e.property}`] = e.value;
    if (e.op === "update_dict") for (const [k, v] of Object.entries(e.data ?? {})) state[`realm_${k}`] = v;
  },

  realm_user(state, e) {
    if (e.op === "update" && e.person?.is_active === false) dropDeactivatedUserFromGroups(state, e.person.user_id);
    if (!state.realm_users) return;
    const person = e.person ?? {};
    if (e.op === "add") {
      state.realm_users.push(person);
      state.realm_users.sort((a: any, b: any) => a.user_id - b.user_id);
    } else if (e.op === "remove") {
      state.realm_users = state.realm_users.filter((u: any) => u.user_id !== person.user_id);
    } else if (e.op === "update") {
      const target = byUserId(state.realm_users, person.user_id) ?? byUserId(state.realm_non_active_users, person.user_id);
      if (!target) return;
      for (const [k, v] of Object.entries(person)) {
        if (k === "custom_profile_field") {
          const f = v as { id: number; value: string | null; rendered_value?: string };
          target.profile_data ??= {};
          if (f.value === null) delete target.profile_data[String(f.id)];
          else target.profile_data[String(f.id)] = "rendered_value" in f ? { value: f.value, rendered_value: f.rendered_value } : { value: f.value };
        } else if (k === "is_active") {
          target.is_active = v;
          const [from, to] = v ? ["realm_non_active_users", "realm_users"] : ["realm_users", "realm_non_active_users"];
          state[from] = state[from].filter((u: any) => u !== target);
          state[to].push(target);
          state[to].sort((a: any, b: any) => a.user_id - b.user_id);
        } else if (k === "new_email") {
          target.email = v;
        } else if (k !== "user_id") {
          target[k] = v;
        }
      }
      if (person.user_id === state.user_id) {
        for (const k of ["full_name", "is_admin", "is_owner", "is_moderator", "is_guest", "avatar_url", "email", "delivery_email"]) {
          if (k in person) state[k] = person[k];
        }
        if ("new_email" in person && "email" in state) state.email = person.new_email;
      }
    }
  },

  stream(state, e) {
    if (e.op === "create" && state.streams) {
      state.streams.push(...e.streams);
      state.streams.sort((a: any, b: any) => a.stream_id - b.stream_id);
    }
    if (e.op === "create" && state.never_subscribed) {
      for (const s of e.streams) {
        const known = [...state.subscriptions, ...state.unsubscribed, ...state.never_subscribed].some((x: any) => x.stream_id === s.stream_id);
        if (!known) state.never_subscribed.push({ ...s, ...("subscribers" in (state.never_subscribed[0] ?? {}) ? { subscribers: [] } : {}) });
      }
      sortByName(state.never_subscribed);
    }
    if (e.op === "delete") {
      const ids = new Set<number>(e.stream_ids ?? e.streams.map((s: any) => s.stream_id));
      for (const key of ["streams", "subscriptions", "unsubscribed", "never_subscribed"]) {
        if (state[key]) state[key] = state[key].filter((s: any) => !ids.has(s.stream_id));
      }
    }
    if (e.op === "update") {
      for (const key of ["streams", "subscriptions", "unsubscribed", "never_subscribed"]) {
        for (const s of state[key] ?? []) {
          if (s.stream_id !== e.stream_id) continue;
          s[e.property] = e.value;
          for (const extra of ["rendered_description", "history_public_to_subscribers", "is_web_public"]) if (extra in e) s[extra] = e[extra];
        }
        if (e.property === "name" && state[key] && key !== "streams") sortByName(state[key]);
      }
    }
  },

  subscription(state, e, opts) {
    if (e.op === "add") {
      for (const sub of e.subscriptions) {
        const stream = state.streams?.find((x: any) => x.stream_id === sub.stream_id);
        if (stream) stream.subscriber_count = sub.subscriber_count;
      }
    }
    if (!state.subscriptions) return;
    if (e.op === "add") {
      for (const event_sub of e.subscriptions) {
        const sub = { ...event_sub };
        if (!opts.includeSubscribers) delete sub.subscribers;
        state.unsubscribed = state.unsubscribed.filter((s: any) => s.stream_id !== sub.stream_id);
        state.never_subscribed = state.never_subscribed.filter((s: any) => s.stream_id !== sub.stream_id);
        state.subscriptions.push(sub);
      }
      sortByName(state.subscriptions);
    } else if (e.op === "remove") {
      const ids = new Set(e.subscriptions.map((s: any) => s.stream_id));
      const removed = state.subscriptions.filter((s: any) => ids.has(s.stream_id));
      state.subscriptions = state.subscriptions.filter((s: any) => !ids.has(s.stream_id));
      state.unsubscribed.push(...removed);
      sortByName(state.unsubscribed);
    } else if (e.op === "update") {
      const sub = state.subscriptions.find((s: any) => s.stream_id === e.stream_id);
      if (sub) {
        const wasMuted = sub.is_muted === true;
        sub[e.property] = e.value;
        if (e.property === "is_muted") sub.in_home_view = !e.value;
        if (e.property === "in_home_view") sub.is_muted = !e.value;
        if (sub.is_muted !== wasMuted) applyChannelMuteToUnread(state, e.stream_id, wasMuted);
      }
    } else if (e.op === "peer_add" || e.op === "peer_remove") {
      const streamIds = new Set(e.stream_ids);
      for (const key of ["subscriptions", "unsubscribed", "never_subscribed", "streams"]) {
        for (const s of state[key] ?? []) {
          if (!streamIds.has(s.stream_id)) continue;
          if (Array.isArray(s.subscribers)) {
            const current = new Set<number>(s.subscribers);
            for (const u of e.user_ids) {
              if (e.op === "peer_add") current.add(u);
              else current.delete(u);
            }
            s.subscribers = [...current].sort((a, b) => a - b);
            if ("subscriber_count" in s) s.subscriber_count = current.size;
          } else if ("subscriber_count" in s) {
            s.subscriber_count += e.op === "peer_add" ? e.user_ids.length : -e.user_ids.length;
          }
        }
      }
    }
  },

  drafts(state, e) {
    if (!state.drafts) return;
    if (e.op === "add") state.drafts.push(...e.drafts);
    if (e.op === "update") state.drafts = state.drafts.map((d: any) => (d.id === e.draft.id ? e.draft : d));
    if (e.op === "remove") state.drafts = state.drafts.filter((d: any) => d.id !== e.draft_id);
    state.drafts.sort((a: any, b: any) => b.timestamp - a.timestamp || b.id - a.id);
  },

  scheduled_messages: applyScheduledMessages,
  reminders: applyReminders,

  user_topic(state, e) {
    if (!state.user_topics) return;
    state.user_topics = state.user_topics.filter(
      (t: any) => !(t.stream_id === e.stream_id && sameTopic(t.topic_name, e.topic_name)),
    );
    if (e.visibility_policy !== 0) {
      const { type: _t, id: _i, ...entry } = e;
      state.user_topics.push(entry);
    }
    recountUnread(state);
  },

  muted_topics(state, e) {
    if (state.muted_topics) state.muted_topics = e.muted_topics;
  },

  custom_profile_fields(state, e) {
    if (state.custom_profile_fields) state.custom_profile_fields = e.fields;
  },

  realm_linkifiers(state, e) {
    if (state.realm_linkifiers) state.realm_linkifiers = e.realm_linkifiers;
  },

  alert_words(state, e) {
    if (state.alert_words) state.alert_words = e.alert_words;
  },

  message(state, e, opts) {
    if ("max_message_id" in state) state.max_message_id = Math.max(state.max_message_id, e.message.id);
    applyMessageToUnread(state, e, opts.userId);
    // A channel's first message sets its first_message_id.
    if (e.message.type === "stream") {
      for (const key of ["subscriptions", "streams"]) {
        for (const s of state[key] ?? []) if (s.stream_id === e.message.stream_id && s.first_message_id === null) s.first_message_id = e.message.id;
      }
    }
  },

  update_message_flags(state, e, opts) {
    applyFlagsToUnread(state, e, opts.userId);
  },

  delete_message(state, e) {
    applyDeleteToUnread(state, e);
  },

  update_message(state, e) {
    applyMoveToUnread(state, e);
  },

  user_settings: (state, e) => applyUserSettings(state, e),
  update_display_settings: (state, e) => applyLegacyDisplaySettings(state, e),
  update_global_notifications: (state, e) => applyLegacyNotificationSettings(state, e),
  user_group: (state, e) => applyUserGroup(state, e),
  navigation_view: (state, e) => applyNavigationView(state, e),
  push_device(state, e) {
    if (state.push_devices) state.push_devices[e.push_account_id] = { status: e.status, error_code: e.error_code ?? null };
  },

  realm_emoji(state, e) {
    if (state.realm_emoji) state.realm_emoji = e.realm_emoji;
  },

  user_status(state, e) {
    if (!state.user_status) return;
    const key = String(e.user_id);
    const entry: Record<string, unknown> = { ...(state.user_status[key] ?? {}) };
    if ("status_text" in e) {
      if (e.status_text) entry.status_text = e.status_text;
      else delete entry.status_text;
    }
    if ("emoji_name" in e) {
      if (e.emoji_name) Object.assign(entry, { emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type });
      else for (const k of ["emoji_name", "emoji_code", "reaction_type"]) delete entry[k];
    }
    if (Object.keys(entry).length > 0) state.user_status[key] = entry;
    else delete state.user_status[key];
  },
};

/** Applies one event in place; unknown types leave the state alone. */
export function applyEvent(state: State, event: ChatEvent, opts: ApplyOptions = {}): void {
  appliers[event.type]?.(state, event as Record<string, any>, opts);
}

export function applyEvents(state: State, events: readonly ChatEvent[], opts: ApplyOptions = {}): void {
  for (const e of events) applyEvent(state, e, opts);
}
