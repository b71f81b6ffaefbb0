/**
 * The Kysely database interface: one interface per table, named like the table.
 * Portable conventions (see db/dialect.ts): booleans are integers 0/1, times are
 * UNIX seconds (bigint), JSON-valued columns are text.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

type Id = Generated<number>;
/** A column with a database default: optional on insert. */
type Default<T> = Generated<T>;
/** A 0/1 integer flag. */
export type Flag = number;

export interface RealmTable {
  id: Id;
  /** Always null: realms carry the column so every table has realm_id. */
  realm_id: Default<number | null>;
  /** Subdomain; "" is the default realm served on the bare host. */
  string_id: string;
  name: string;
  description: Default<string>;
  icon_url: Default<string | null>;
  date_created: number;
  deactivated: Default<Flag>;
  /** The public-access option: spectators may read web-public channels and GET /users. */
  enable_spectator_access: Default<Flag>;
  invite_required: Default<Flag>;
  emails_restricted_to_domains: Default<Flag>;
  disallow_disposable_email_addresses: Default<Flag>;
  max_message_length: Default<number>;
  max_topic_length: Default<number>;
  empty_topic_display_name: Default<string>;
  mandatory_topics: Default<Flag>;
  moderation_request_channel_id: Default<number | null>;
  allow_message_editing: Default<Flag>;
  allow_edit_history: Default<Flag>;
  message_content_edit_limit_seconds: Default<number | null>;
  message_content_delete_limit_seconds: Default<number | null>;
  move_messages_within_stream_limit_seconds: Default<number | null>;
  move_messages_between_streams_limit_seconds: Default<number | null>;
  presence_disabled: Default<Flag>;
  waiting_period_threshold: Default<number>;
  default_language: Default<string>;
  /** Group-valued permission settings: ids of rows in user_groups (system or anonymous). */
  can_invite_users_group_id: Default<number | null>;
  can_create_groups_group_id: Default<number | null>;
  can_manage_all_groups_group_id: Default<number | null>;
  can_add_subscribers_group_id: Default<number | null>;
  can_create_public_channel_group_id: Default<number | null>;
  can_create_private_channel_group_id: Default<number | null>;
  can_create_web_public_channel_group_id: Default<number | null>;
  can_move_messages_between_channels_group_id: Default<number | null>;
  can_move_messages_between_topics_group_id: Default<number | null>;
  can_resolve_topics_group_id: Default<number | null>;
  can_delete_own_message_group_id: Default<number | null>;
  can_delete_any_message_group_id: Default<number | null>;
  can_mention_many_users_group_id: Default<number | null>;
  can_access_all_users_group_id: Default<number | null>;
  direct_message_permission_group_id: Default<number | null>;
  /** Who may upload custom emoji (migration 0012). */
  can_add_custom_emoji_group_id: Default<number | null>;
  /** The realm's system notification bot (a users row; see lib/notification-bot.ts). */
  notification_bot_id: Default<number | null>;
  /** Where channels created with `announce` are announced; null: nowhere. */
  new_stream_announcements_stream_id: Default<number | null>;
}

export interface UserTable {
  id: Id;
  realm_id: number;
  /** The real address; API email is derived (dummy user{id}@host unless visibility is everyone). */
  delivery_email: string;
  full_name: string;
  role: Default<number>;
  is_active: Default<Flag>;
  is_bot: Default<Flag>;
  bot_type: Default<number | null>;
  bot_owner_id: Default<number | null>;
  timezone: Default<string>;
  /** "G" hash-based (third-party hashed) avatar, "U" uploaded. */
  avatar_source: Default<string>;
  avatar_version: Default<number>;
  api_key: string;
  /** scrypt$N$r$p$salt$hash, or null when password login is not possible. */
  password_hash: Default<string | null>;
  date_joined: number;
  /** 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators. */
  email_address_visibility: Default<number>;
  presence_enabled: Default<Flag>;
  enable_drafts_synchronization: Default<Flag>;
  default_language: Default<string>;
  can_change_user_emails: Default<Flag>;
  can_create_users: Default<Flag>;
}

export interface CustomProfileFieldTable {
  id: Id;
  realm_id: number;
  name: string;
  hint: Default<string>;
  /** 1 short text, 2 long text, 3 select, 4 date, 5 link, 6 user, 7 external account, 8 pronouns. */
  field_type: number;
  field_data: Default<string>;
  order: Default<number>;
  display_in_profile_summary: Default<Flag>;
  required: Default<Flag>;
  editable_by_user: Default<Flag>;
}

export interface CustomProfileFieldValueTable {
  id: Id;
  realm_id: number;
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: Default<string | null>;
}

/** A recipient is a channel, a user (direct messages to one person) or a direct-message group. */
export interface RecipientTable {
  id: Id;
  realm_id: number;
  /** 1 personal, 2 channel, 3 direct-message group. */
  type: number;
  type_id: number;
}

export interface ChannelTable {
  id: Id;
  realm_id: number;
  name: string;
  description: Default<string>;
  rendered_description: Default<string>;
  invite_only: Default<Flag>;
  is_web_public: Default<Flag>;
  history_public_to_subscribers: Default<Flag>;
  is_announcement_only: Default<Flag>;
  date_created: number;
  creator_id: Default<number | null>;
  recipient_id: Default<number | null>;
  first_message_id: Default<number | null>;
  message_retention_days: Default<number | null>;
  deactivated: Default<Flag>;
  can_remove_subscribers_group_id: Default<number | null>;
  can_administer_channel_group_id: Default<number | null>;
  can_send_message_group_id: Default<number | null>;
}

export interface DefaultChannelTable {
  id: Id;
  realm_id: number;
  channel_id: number;
}

export interface SubscriptionTable {
  id: Id;
  realm_id: number;
  user_id: number;
  recipient_id: number;
  active: Default<Flag>;
  is_muted: Default<Flag>;
  pin_to_top: Default<Flag>;
  color: Default<string>;
  desktop_notifications: Default<Flag | null>;
  audible_notifications: Default<Flag | null>;
  push_notifications: Default<Flag | null>;
  email_notifications: Default<Flag | null>;
  wildcard_mentions_notify: Default<Flag | null>;
}

export interface DirectMessageGroupTable {
  id: Id;
  realm_id: number;
  /** Sorted, comma-joined user ids: one group per set of people. */
  member_key: string;
  recipient_id: Default<number | null>;
  group_size: number;
}

export interface MessageTable {
  id: Id;
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  /** Channel messages: the channel id (denormalized from the recipient for narrow queries). */
  channel_id: Default<number | null>;
  topic: Default<string>;
  content: string;
  rendered_content: string;
  rendered_content_version: Default<number>;
  date_sent: number;
  sending_client: Default<string>;
  last_edit_time: Default<number | null>;
  last_moved_time: Default<number | null>;
  is_me_message: Default<Flag>;
  has_attachment: Default<Flag>;
  has_image: Default<Flag>;
  has_link: Default<Flag>;
}

/** One row per (edit or move) of a message; oldest first by id. */
export interface MessageEditTable {
  id: Id;
  realm_id: number;
  message_id: number;
  user_id: Default<number | null>;
  timestamp: number;
  prev_content: Default<string | null>;
  prev_rendered_content: Default<string | null>;
  prev_topic: Default<string | null>;
  topic: Default<string | null>;
  prev_channel_id: Default<number | null>;
  channel_id: Default<number | null>;
}

/** Per-user message rows; `flags` is a bit set (see lib/message-flags.ts). */
export interface UserMessageTable {
  realm_id: number;
  user_id: number;
  message_id: number;
  flags: Default<number>;
}

export interface ReactionTable {
  id: Id;
  realm_id: number;
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

export interface SubmessageTable {
  id: Id;
  realm_id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

export interface RealmEmojiTable {
  id: Id;
  realm_id: number;
  name: string;
  file_name: string;
  author_id: Default<number | null>;
  deactivated: Default<Flag>;
  /** The image is animated; a still PNG of its first frame is stored too (migration 0012). */
  is_animated: Default<Flag>;
}

export interface DraftTable {
  id: Id;
  realm_id: number;
  user_id: number;
  /** "", "stream" or "private". */
  type: string;
  /** JSON array of ids: [channel_id] or user ids. */
  to_json: Default<string>;
  topic: Default<string>;
  content: string;
  last_edit_time: number;
}

/** Scheduled messages and reminders (delivery_type 2) share one table, as upstream. */
export interface ScheduledMessageTable {
  id: Id;
  realm_id: number;
  sender_id: number;
  /** 1 send later, 2 reminder. */
  delivery_type: Default<number>;
  /** "stream" or "private". */
  type: string;
  channel_id: Default<number | null>;
  /** JSON array of user ids for direct messages. */
  to_json: Default<string>;
  topic: Default<string>;
  content: string;
  rendered_content: string;
  scheduled_timestamp: number;
  read_by_sender: Default<Flag>;
  delivered: Default<Flag>;
  delivered_message_id: Default<number | null>;
  failed: Default<Flag>;
  failure_message: Default<string | null>;
  reminder_target_message_id: Default<number | null>;
  reminder_note: Default<string | null>;
  sending_client: Default<string>;
}

export interface UserTopicTable {
  id: Id;
  realm_id: number;
  user_id: number;
  channel_id: number;
  topic_name: string;
  /** Lower-cased topic, for the unique index (topics compare case-insensitively). */
  topic_key: string;
  visibility_policy: number;
  last_updated: number;
}

export interface UserGroupTable {
  id: Id;
  realm_id: number;
  /** null for anonymous groups that back a group-setting value. */
  name: Default<string | null>;
  description: Default<string>;
  is_system_group: Default<Flag>;
  deactivated: Default<Flag>;
  date_created: number;
  creator_id: Default<number | null>;
  can_add_members_group_id: Default<number | null>;
  can_join_group_id: Default<number | null>;
  can_leave_group_id: Default<number | null>;
  can_manage_group_id: Default<number | null>;
  can_mention_group_id: Default<number | null>;
  can_remove_members_group_id: Default<number | null>;
}

export interface UserGroupMemberTable {
  realm_id: number;
  group_id: number;
  user_id: number;
}

export interface UserGroupSubgroupTable {
  realm_id: number;
  supergroup_id: number;
  subgroup_id: number;
}

export interface InviteTable {
  id: Id;
  realm_id: number;
  email: string;
  referrer_id: number;
  invited_as: Default<number>;
  invited_at: number;
  expires_at: Default<number | null>;
  /** 0 pending, 1 used, 2 revoked. */
  status: Default<number>;
  notify_referrer_on_join: Default<Flag>;
  include_realm_default_subscriptions: Default<Flag>;
  welcome_message_custom_text: Default<string | null>;
  channel_ids_json: Default<string>;
  group_ids_json: Default<string>;
  /** Migration 0007: the link's secret; reusable links have is_multiuse = 1 and email "". */
  link_key: Default<string | null>;
  is_multiuse: Default<Flag>;
}

export interface LinkifierTable {
  id: Id;
  realm_id: number;
  pattern: string;
  url_template: string;
  order: Default<number>;
}

export interface NavigationViewTable {
  id: Id;
  realm_id: number;
  user_id: number;
  fragment: string;
  is_pinned: Default<Flag>;
  name: Default<string | null>;
}

export interface PushDeviceTable {
  id: Id;
  realm_id: number;
  user_id: number;
  token_kind: string;
  push_account_id: number;
  push_public_key: string;
  bouncer_public_key: string;
  encrypted_push_registration: string;
  status: Default<string>;
  error_code: Default<string | null>;
  date_created: number;
  /** Migration 0007: the decrypted, validated registration. */
  token: Default<string | null>;
  ios_app_id: Default<string | null>;
}

/** Migration 0007: one row per invitation email sent, for the daily limit. */
export interface InviteSendTable {
  id: Id;
  realm_id: number;
  invite_id: number;
  sent_at: number;
}

export interface UserStatusTable {
  realm_id: number;
  user_id: number;
  status_text: Default<string>;
  emoji_name: Default<string>;
  emoji_code: Default<string>;
  reaction_type: Default<string>;
  timestamp: number;
}

export interface PresenceTable {
  realm_id: number;
  user_id: number;
  last_active_time: Default<number | null>;
  last_connected_time: Default<number | null>;
  /** Realm-wide sequence value at this row's last change (presence_last_update_id). */
  last_update_id: Default<number>;
}

export interface PresenceSequenceTable {
  realm_id: number;
  last_update_id: Default<number>;
}

export interface AlertWordTable {
  id: Id;
  realm_id: number;
  user_id: number;
  word: string;
}

/** An operator's request to lift a login lock-out (`parley clear-lockout`); consumed by the server. */
export interface LoginLockoutClearTable {
  id: Id;
  realm_id: number;
  /** Lowercased login email. */
  email: string;
  cleared_at: number;
}

export interface DB {
  realms: RealmTable;
  users: UserTable;
  custom_profile_fields: CustomProfileFieldTable;
  custom_profile_field_values: CustomProfileFieldValueTable;
  recipients: RecipientTable;
  channels: ChannelTable;
  default_channels: DefaultChannelTable;
  subscriptions: SubscriptionTable;
  direct_message_groups: DirectMessageGroupTable;
  messages: MessageTable;
  message_edits: MessageEditTable;
  user_messages: UserMessageTable;
  reactions: ReactionTable;
  submessages: SubmessageTable;
  realm_emoji: RealmEmojiTable;
  drafts: DraftTable;
  scheduled_messages: ScheduledMessageTable;
  user_topics: UserTopicTable;
  user_groups: UserGroupTable;
  user_group_members: UserGroupMemberTable;
  user_group_subgroups: UserGroupSubgroupTable;
  invites: InviteTable;
  linkifiers: LinkifierTable;
  navigation_views: NavigationViewTable;
  push_devices: PushDeviceTable;
  invite_sends: InviteSendTable;
  user_status: UserStatusTable;
  presence: PresenceTable;
  presence_sequence: PresenceSequenceTable;
  alert_words: AlertWordTable;
  login_lockout_clears: LoginLockoutClearTable;
  attachments: AttachmentTable;
  attachment_messages: AttachmentMessageTable;
  stored_files: StoredFileTable;
  upload_url_keys: UploadUrlKeyTable;
  sessions: SessionTable;
}

/** Migration 0013: a stored file's bytes (PARLEY_FILE_STORAGE=database); see src/storage. */
export interface StoredFileTable {
  id: Id;
  realm_id: number;
  area: string;
  name: string;
  size: number;
  data: Buffer;
}

/** Migration 0013: the key signing temporary file URLs (one row, id 1), shared by every node. */
export interface UploadUrlKeyTable {
  id: number;
  /** 32 random bytes, base64. */
  key: string;
}

/** Migration 0011: uploaded files and the messages that link them. */
export interface AttachmentTable {
  id: Id;
  realm_id: number;
  owner_id: number;
  path_id: string;
  file_name: string;
  content_type: string | null;
  size: number;
  create_time: number;
}

export interface AttachmentMessageTable {
  attachment_id: number;
  message_id: number;
}

export type Attachment = Selectable<AttachmentTable>;

export type Realm = Selectable<RealmTable>;
export type User = Selectable<UserTable>;
export type NewUser = Insertable<UserTable>;
export type UserUpdate = Updateable<UserTable>;
/**
 * The columns a user record (toApiUser) is made of: listing every user reads only these,
 * never credentials, and wide rows cost per column on SQLite.
 */
export const USER_CARD_COLUMNS = [
  "id",
  "realm_id",
  "delivery_email",
  "full_name",
  "role",
  "is_active",
  "is_bot",
  "bot_type",
  "bot_owner_id",
  "timezone",
  "avatar_source",
  "avatar_version",
  "date_joined",
  "email_address_visibility",
  "presence_enabled",
] as const satisfies ReadonlyArray<keyof User>;

export type UserCard = Pick<User, (typeof USER_CARD_COLUMNS)[number]>;

export type Channel = Selectable<ChannelTable>;
export type Message = Selectable<MessageTable>;
export type CustomProfileField = Selectable<CustomProfileFieldTable>;
export type Subscription = Selectable<SubscriptionTable>;
export type Recipient = Selectable<RecipientTable>;
export type Linkifier = Selectable<LinkifierTable>;
export type UserGroup = Selectable<UserGroupTable>;
export type Invite = Selectable<InviteTable>;
export type NavigationView = Selectable<NavigationViewTable>;
export type PushDevice = Selectable<PushDeviceTable>;
export type { ColumnType };

// Drafts, scheduled messages and reminders (issue 11).
export type Draft = Selectable<DraftTable>;
export type NewDraft = Insertable<DraftTable>;
export type ScheduledMessage = Selectable<ScheduledMessageTable>;
export type NewScheduledMessage = Insertable<ScheduledMessageTable>;

/** Migration 0015: a browser session (POST /accounts/login/); the token itself is never stored. */
export interface SessionTable {
  id: Id;
  realm_id: number;
  user_id: number;
  /** Hex SHA-256 of the session token (the sessionid cookie). */
  token_hash: string;
  /** 32 letters and digits; X-CSRFToken carries it masked (lib/csrf.ts). */
  csrf_secret: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}
export type Session = Selectable<SessionTable>;
