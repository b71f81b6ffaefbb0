/**
 * The organization settings PATCH /realm can change (upstream update_realm): one entry per
 * setting, naming its parameter parser, how a value is checked, the realm column it is
 * stored in, the value clients see (register's `realm_<name>`, the event's `value`), the
 * event style upstream uses for it and whether only owners may change it. Add a setting
 * by adding an entry. Group-valued settings are not here yet (see README, Unfinished).
 */
import { ApiError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { accessChannelById } from "./channels.js";
import { LANGUAGE_NAMES } from "./settings.js";

/** Upstream's Realm.MAX_REALM_NAME_LENGTH and MAX_REALM_DESCRIPTION_LENGTH. */
export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;

/**
 * A raw parameter parser (from the view's parameter layer), kept abstract here.
 * `timeLimit`: a JSON integer or string, checked by the setting (upstream checks it after
 * the owner-only checks).
 */
export type SettingParser = "bool" | "nonNegativeInt" | "int" | "timeLimit" | "language" | { maxLength: number };

export type StoredValue = number | string | null;

export interface RealmSetting {
  parser: SettingParser;
  column: keyof Realm;
  /** Upstream's owner-only settings (update_realm's OrganizationOwnerRequiredError checks). */
  ownerOnly?: boolean;
  /** Checks a parsed value and returns the stored column value. */
  check(db: Queryable, actor: User, value: unknown): Promise<StoredValue>;
  /** The API value of a stored column value. */
  toApi(stored: StoredValue): unknown;
  /** `update` {property, value}, or `update_dict` {property: "default", data} (upstream's edit settings). */
  event: "update" | "update_dict";
  /** Register keys computed from this setting, each announced with its own `update` event. */
  derived?: (stored: StoredValue) => Record<string, unknown>;
}

const asIs = async (_db: Queryable, _actor: User, value: unknown) => value as StoredValue;

const flag = (column: keyof Realm, opts: Partial<RealmSetting> = {}): RealmSetting => ({
  parser: "bool",
  column,
  check: async (_db, _actor, value) => (value ? 1 : 0),
  toApi: (stored) => stored === 1,
  event: "update",
  ...opts,
});

const text = (column: keyof Realm, maxLength: number): RealmSetting => ({ parser: { maxLength }, column, check: asIs, toApi: (s) => s, event: "update" });

/** Upstream parse_message_time_limit_setting: a positive number of seconds, or "unlimited" (null). */
function checkTimeLimit(name: string, value: number | string): number | null {
  if (value === "unlimited") return null;
  if (typeof value === "string" || value <= 0) {
    throw new ApiError(`Bad value for '${name}': ${value}`, { code: "REQUEST_VARIABLE_INVALID", data: { var_name: name, bad_value: value } });
  }
  return value;
}

/** A message time limit in seconds; null (sent as "unlimited") for none. */
const timeLimit = (column: keyof Realm, event: RealmSetting["event"] = "update"): RealmSetting => ({
  parser: "timeLimit",
  column,
  check: async (_db, _actor, value) => checkTimeLimit(column, value as number | string),
  toApi: (s) => s,
  event,
});

/** A channel the caller can access, or -1 for none (stored as null). */
const channelSetting = (column: keyof Realm, extra?: (channel: { invite_only: number }) => void): RealmSetting => ({
  parser: "int",
  column,
  async check(db, actor, value) {
    const id = value as number;
    if (id < 0) return null;
    const { channel } = await accessChannelById(db, actor, id);
    extra?.(channel);
    return channel.id;
  },
  toApi: (stored) => stored ?? -1,
  event: "update",
});

export const REALM_SETTINGS: Record<string, RealmSetting> = {
  name: text("name", MAX_REALM_NAME_LENGTH),
  description: text("description", MAX_REALM_DESCRIPTION_LENGTH),
  emails_restricted_to_domains: flag("emails_restricted_to_domains", { ownerOnly: true }),
  disallow_disposable_email_addresses: flag("disallow_disposable_email_addresses", { ownerOnly: true }),
  invite_required: flag("invite_required", { ownerOnly: true }),
  message_content_delete_limit_seconds: timeLimit("message_content_delete_limit_seconds"),
  allow_message_editing: flag("allow_message_editing", { event: "update_dict" }),
  // Register also reports the newer topics_policy, which this flag decides.
  mandatory_topics: flag("mandatory_topics", { derived: (s) => ({ topics_policy: s === 1 ? "disable_empty_topic" : "allow_empty_topic" }) }),
  message_content_edit_limit_seconds: timeLimit("message_content_edit_limit_seconds", "update_dict"),
  // Register also reports the newer message_edit_history_visibility_policy, which this flag decides.
  allow_edit_history: flag("allow_edit_history", { derived: (s) => ({ message_edit_history_visibility_policy: s === 1 ? "all" : "none" }) }),
  default_language: { parser: "language", column: "default_language", check: async (_db, _actor, value) => checkRealmLanguage(value as string), toApi: (s) => s, event: "update" },
  waiting_period_threshold: { parser: "nonNegativeInt", column: "waiting_period_threshold", ownerOnly: true, check: asIs, toApi: (s) => s, event: "update" },
  moderation_request_channel_id: channelSetting("moderation_request_channel_id", (channel) => {
    if (!channel.invite_only) throw new ApiError("Moderation request channel must be private.");
  }),
  new_stream_announcements_stream_id: channelSetting("new_stream_announcements_stream_id"),
  enable_spectator_access: flag("enable_spectator_access"),
  presence_disabled: flag("presence_disabled"),
  move_messages_within_stream_limit_seconds: timeLimit("move_messages_within_stream_limit_seconds"),
  move_messages_between_streams_limit_seconds: timeLimit("move_messages_between_streams_limit_seconds"),
};

/** Upstream's default_language check (before any change is made). */
export function checkRealmLanguage(code: string): string {
  if (!Object.hasOwn(LANGUAGE_NAMES, code)) throw new ApiError(`Invalid language '${code}'`);
  return code;
}
