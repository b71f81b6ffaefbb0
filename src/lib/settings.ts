/**
 * Personal settings (upstream UserBaseSettings.property_types): the ones stored in users
 * columns, the fixed upstream defaults returned for the others, the legacy groupings
 * that clients without the user_settings_object capability get at the top level of
 * /register, and the choices clients offer.
 */
import type { User } from "../db/schema.js";

/** Settings stored in users columns, with their API types. */
export const STORED_SETTINGS = ["default_language", "enable_drafts_synchronization", "presence_enabled", "email_address_visibility"] as const;
export type StoredSetting = (typeof STORED_SETTINGS)[number];

/** Settings we do not store: always upstream's default for a new account. */
export const FIXED_SETTING_VALUES: Readonly<Record<string, boolean | number | string>> = {
  // Display settings.
  color_scheme: 1,
  web_home_view: "inbox",
  demote_inactive_streams: 1,
  emojiset: "google",
  enter_sends: false,
  fluid_layout_width: false,
  high_contrast_mode: false,
  left_side_userlist: false,
  starred_message_counts: true,
  translate_emoticons: false,
  twenty_four_hour_time: false,
  // Notification settings.
  desktop_icon_count_display: 1,
  email_notifications_batching_period_seconds: 120,
  enable_desktop_notifications: true,
  enable_digest_emails: true,
  enable_login_emails: true,
  enable_marketing_emails: true,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_sounds: true,
  enable_stream_audible_notifications: false,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  message_content_in_email_notifications: true,
  notification_sound: "chime",
  pm_content_in_desktop_notifications: true,
  realm_name_in_email_notifications_policy: 1,
  wildcard_mentions_notify: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  // Other settings.
  display_emoji_reaction_users: true,
  web_escape_navigates_to_home_view: true,
  receives_typing_notifications: true,
  send_private_typing_notifications: true,
  send_read_receipts: true,
  send_stream_typing_notifications: true,
  allow_private_data_export: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  user_list_style: 3,
  web_animate_image_previews: "on_hover",
  web_stream_unreads_count_display_policy: 2,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  web_navigate_to_sent_message: true,
  web_suggest_update_timezone: true,
  hide_ai_features: false,
  resolved_topic_notice_auto_read_policy: "except_followed",
};

/** Upstream display_settings_legacy: top-level /register keys for clients without user_settings_object. */
export const DISPLAY_SETTINGS_LEGACY = [
  "color_scheme",
  "default_language",
  "web_home_view",
  "demote_inactive_streams",
  "emojiset",
  "enable_drafts_synchronization",
  "enter_sends",
  "fluid_layout_width",
  "high_contrast_mode",
  "left_side_userlist",
  "starred_message_counts",
  "translate_emoticons",
  "twenty_four_hour_time",
] as const;

/** Upstream notification_settings_legacy. */
export const NOTIFICATION_SETTINGS_LEGACY = [
  "desktop_icon_count_display",
  "email_notifications_batching_period_seconds",
  "enable_desktop_notifications",
  "enable_digest_emails",
  "enable_login_emails",
  "enable_marketing_emails",
  "enable_offline_email_notifications",
  "enable_offline_push_notifications",
  "enable_online_push_notifications",
  "enable_sounds",
  "enable_stream_audible_notifications",
  "enable_stream_desktop_notifications",
  "enable_stream_email_notifications",
  "enable_stream_push_notifications",
  "message_content_in_email_notifications",
  "notification_sound",
  "pm_content_in_desktop_notifications",
  "presence_enabled",
  "realm_name_in_email_notifications_policy",
  "wildcard_mentions_notify",
] as const;

export const EMOJISET_CHOICES = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
  { key: "google-blob", text: "Google blobs" },
] as const;

export const AVAILABLE_NOTIFICATION_SOUNDS = ["chime", "ding"] as const;

/** Languages a user may choose (code → name shown to clients in language_name). */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  ar: "العربيّة",
  bg: "български",
  ca: "català",
  cs: "česky",
  da: "dansk",
  de: "Deutsch",
  el: "ελληνικά",
  en: "English",
  en_GB: "British English",
  es: "español",
  fa: "فارسی",
  fi: "suomi",
  fr: "français",
  hi: "हिंदी",
  hu: "magyar",
  id: "Bahasa Indonesia",
  it: "italiano",
  ja: "日本語",
  ko: "한국어",
  lt: "lietuvių",
  nl: "Nederlands",
  pl: "polski",
  pt: "português",
  pt_BR: "português do Brasil",
  ro: "română",
  ru: "русский",
  sk: "slovenčina",
  sr: "српски",
  sv: "svenska",
  ta: "தமிழ்",
  tr: "Türkçe",
  uk: "українська",
  vi: "tiếng việt",
  "zh-hans": "简体中文",
  "zh-hant": "繁體中文",
};

/** The value of a stored setting as the API shows it (flags as booleans). */
export function storedSettingValue(user: Pick<User, StoredSetting>, name: StoredSetting): boolean | number | string {
  switch (name) {
    case "default_language":
      return user.default_language;
    case "email_address_visibility":
      return user.email_address_visibility;
    case "enable_drafts_synchronization":
      return user.enable_drafts_synchronization === 1;
    case "presence_enabled":
      return user.presence_enabled === 1;
  }
}

/** Every personal setting's value for this user (upstream property_types). */
export function userSettingValues(user: Pick<User, StoredSetting>): Record<string, boolean | number | string> {
  const out: Record<string, boolean | number | string> = { ...FIXED_SETTING_VALUES };
  for (const name of STORED_SETTINGS) out[name] = storedSettingValue(user, name);
  return out;
}

/** Whether a time zone name is one the runtime knows (IANA names and their aliases). */
export function isKnownTimezone(name: string): boolean {
  if (name === "") return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
