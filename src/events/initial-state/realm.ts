/** Realm settings and server limits in /register (event type "realm"). */
import { CHANNEL_LIMITS, typingIntervals } from "./limits.js";
import { PRESENCE_OFFLINE_THRESHOLD_SECONDS, PRESENCE_PING_INTERVAL_SECONDS } from "../../lib/presence.js";
import { REALM_GROUP_SETTING_DEFAULTS } from "../../lib/system-groups.js";
import { realmHost, realmUrl } from "../../lib/realm-host.js";
import { emojiDataFile } from "../../lib/emoji-data-file.js";
import { defaultRealmIconUrl } from "../../lib/avatar.js";
import type { Realm } from "../../db/schema.js";
import type { StateFetcher } from "./types.js";
import { DEFAULT_EXTERNAL_ACCOUNTS } from "../../lib/custom-profile-fields.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_GUESSES, PASSWORD_MIN_LENGTH } from "../../lib/password-strength.js";
import { groupSettingValue, realmGroupData, type RealmGroupData } from "./user-groups.js";

const GROUP_SETTINGS = Object.keys(REALM_GROUP_SETTING_DEFAULTS) as Array<keyof typeof REALM_GROUP_SETTING_DEFAULTS>;

/** The API names of the group settings whose column name is not `<name>_id`. */
const GROUP_SETTING_API_NAMES: Partial<Record<(typeof GROUP_SETTINGS)[number], string>> = {
  can_create_groups_group_id: "can_create_groups",
  can_manage_all_groups_group_id: "can_manage_all_groups",
};

/** A realm group-setting column's name in the API: can_invite_users_group_id → can_invite_users_group. */
export function realmGroupSettingName(column: (typeof GROUP_SETTINGS)[number]): string {
  return GROUP_SETTING_API_NAMES[column] ?? column.replace(/_id$/, "");
}

/**
 * realm_<setting> keys of the realm row, as `realm` update events name them; group-valued
 * permission settings are group-setting values (a named group's id, or an anonymous
 * group's {direct_members, direct_subgroups}).
 */
export function realmSettingsState(realm: Realm, externalHost: string, groups: RealmGroupData): Record<string, unknown> {
  const state: Record<string, unknown> = {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_icon_url: realm.icon_url ?? defaultRealmIconUrl(realm.string_id),
    realm_icon_source: realm.icon_url ? "U" : "G",
    realm_url: realmUrl(realm.string_id, externalHost),
    realm_uri: realmUrl(realm.string_id, externalHost),
    realm_date_created: realm.date_created,
    realm_invite_required: realm.invite_required === 1,
    realm_emails_restricted_to_domains: realm.emails_restricted_to_domains === 1,
    realm_disallow_disposable_email_addresses: realm.disallow_disposable_email_addresses === 1,
    realm_enable_spectator_access: realm.enable_spectator_access === 1,
    realm_presence_disabled: realm.presence_disabled === 1,
    realm_mandatory_topics: realm.mandatory_topics === 1,
    realm_allow_message_editing: realm.allow_message_editing === 1,
    realm_allow_edit_history: realm.allow_edit_history === 1,
    realm_message_content_edit_limit_seconds: realm.message_content_edit_limit_seconds,
    realm_message_content_delete_limit_seconds: realm.message_content_delete_limit_seconds,
    realm_move_messages_within_stream_limit_seconds: realm.move_messages_within_stream_limit_seconds,
    realm_move_messages_between_streams_limit_seconds: realm.move_messages_between_streams_limit_seconds,
    realm_waiting_period_threshold: realm.waiting_period_threshold,
    realm_default_language: realm.default_language,
    realm_moderation_request_channel_id: realm.moderation_request_channel_id ?? -1,
    realm_empty_topic_display_name: realm.empty_topic_display_name,
    realm_message_edit_history_visibility_policy: realm.allow_edit_history === 1 ? "all" : "none",
    realm_topics_policy: realm.mandatory_topics === 1 ? "disable_empty_topic" : "allow_empty_topic",
    realm_bot_domain: realmHost(realm.string_id, externalHost),
    // Password login is the only authentication method.
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    // Announcement channels (upstream's -1 for none); only new-channel announcements are configurable.
    realm_new_stream_announcements_stream_id: realm.new_stream_announcements_stream_id ?? -1,
    realm_signup_announcements_stream_id: -1,
  };
  for (const column of GROUP_SETTINGS) {
    state[`realm_${realmGroupSettingName(column)}`] = groupSettingValue(realm[column], groups);
  }
  return state;
}

export const fetchRealmState: StateFetcher = async (sc, state) => {
  Object.assign(state, realmSettingsState(sc.realm, sc.ctx.config.externalHost, await realmGroupData(sc)));
  Object.assign(state, {
    max_message_length: sc.realm.max_message_length,
    max_topic_length: sc.realm.max_topic_length,
    ...CHANNEL_LIMITS,
    server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECONDS,
    server_presence_offline_threshold_seconds: PRESENCE_OFFLINE_THRESHOLD_SECONDS,
    ...typingIntervals,
    // Clients time a poll out after this; our heartbeat comes at longPollSeconds.
    event_queue_longpoll_timeout_seconds: Math.max(90, sc.ctx.config.longPollSeconds + 10),
    // Email and password is the only authentication method.
    realm_authentication_methods: { Email: { enabled: true, available: true } },
    password_min_length: PASSWORD_MIN_LENGTH,
    password_max_length: PASSWORD_MAX_LENGTH,
    password_min_guesses: PASSWORD_MIN_GUESSES,
    max_file_upload_size_mib: sc.ctx.config.maxFileUploadMib,
    server_emoji_data_url: `${realmUrl(sc.realm.string_id, sc.ctx.config.externalHost)}${emojiDataFile().path}`,
    realm_upload_quota_mib: null,
    realm_default_external_accounts: Object.fromEntries(
      Object.entries(DEFAULT_EXTERNAL_ACCOUNTS).map(([subtype, a]) => [subtype, { text: a.name, url_pattern: a.url_pattern, name: a.name, hint: a.hint }]),
    ),
    server_web_public_streams_enabled: true,
    server_name_changes_disabled: false,
    server_avatar_changes_disabled: false,
    development_environment: false,
  });
};
