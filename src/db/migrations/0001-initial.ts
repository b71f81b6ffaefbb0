/** The initial schema: the whole data model of the spec. Portable column types only. */
import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect.js";

type ColumnSpec = [name: string, type: "integer" | "bigint" | "text", opts?: { notNull?: boolean; default?: unknown }];

/** Creates a table with an `id` primary key (unless idless), `realm_id`, and the given columns. */
async function table(db: Kysely<any>, name: string, columns: ColumnSpec[], opts: { id?: boolean } = {}) {
  let tb = db.schema.createTable(name);
  if (opts.id !== false) tb = withIdColumn(db, tb);
  tb = tb.addColumn("realm_id", "integer", (c) => (name === "realms" ? c : c.notNull()));
  for (const [col, type, o] of columns) {
    tb = tb.addColumn(col, type, (c) => {
      let cb = c;
      if (o?.notNull !== false) cb = cb.notNull();
      if (o?.default !== undefined) cb = cb.defaultTo(o.default);
      return cb;
    });
  }
  await tb.execute();
}

const nullable = { notNull: false } as const;
const flag = (d: 0 | 1): ColumnSpec[2] => ({ default: d });

export async function up(db: Kysely<any>): Promise<void> {
  // realms carry realm_id too (always null) so that the "every table has realm_id" rule holds trivially.
  await table(db, "realms", [
    ["string_id", "text"],
    ["name", "text"],
    ["description", "text", { default: "" }],
    ["icon_url", "text", nullable],
    ["date_created", "bigint"],
    ["deactivated", "integer", flag(0)],
    ["enable_spectator_access", "integer", flag(0)],
    ["invite_required", "integer", flag(1)],
    ["emails_restricted_to_domains", "integer", flag(0)],
    ["disallow_disposable_email_addresses", "integer", flag(1)],
    ["max_message_length", "integer", { default: 10000 }],
    ["max_topic_length", "integer", { default: 60 }],
    ["empty_topic_display_name", "text", { default: "general chat" }],
    ["mandatory_topics", "integer", flag(0)],
    ["moderation_request_channel_id", "integer", nullable],
    ["allow_message_editing", "integer", flag(1)],
    ["allow_edit_history", "integer", flag(1)],
    ["message_content_edit_limit_seconds", "integer", nullable],
    ["message_content_delete_limit_seconds", "integer", nullable],
    ["move_messages_within_stream_limit_seconds", "integer", nullable],
    ["move_messages_between_streams_limit_seconds", "integer", nullable],
    ["presence_disabled", "integer", flag(0)],
    ["waiting_period_threshold", "integer", { default: 0 }],
    ["default_language", "text", { default: "en" }],
    ["can_invite_users_group_id", "integer", nullable],
    ["can_create_groups_group_id", "integer", nullable],
    ["can_manage_all_groups_group_id", "integer", nullable],
    ["can_add_subscribers_group_id", "integer", nullable],
    ["can_create_public_channel_group_id", "integer", nullable],
    ["can_create_private_channel_group_id", "integer", nullable],
    ["can_create_web_public_channel_group_id", "integer", nullable],
    ["can_move_messages_between_channels_group_id", "integer", nullable],
    ["can_move_messages_between_topics_group_id", "integer", nullable],
    ["can_resolve_topics_group_id", "integer", nullable],
    ["can_delete_own_message_group_id", "integer", nullable],
    ["can_delete_any_message_group_id", "integer", nullable],
    ["can_mention_many_users_group_id", "integer", nullable],
    ["can_access_all_users_group_id", "integer", nullable],
    ["direct_message_permission_group_id", "integer", nullable],
  ]);
  await db.schema.createIndex("realms_string_id").on("realms").column("string_id").unique().execute();

  await table(db, "users", [
    ["delivery_email", "text"],
    ["full_name", "text"],
    ["role", "integer", { default: 400 }],
    ["is_active", "integer", flag(1)],
    ["is_bot", "integer", flag(0)],
    ["bot_type", "integer", nullable],
    ["bot_owner_id", "integer", nullable],
    ["timezone", "text", { default: "" }],
    ["avatar_source", "text", { default: "G" }],
    ["avatar_version", "integer", { default: 1 }],
    ["api_key", "text"],
    ["password_hash", "text", nullable],
    ["date_joined", "bigint"],
    ["email_address_visibility", "integer", { default: 1 }],
    ["presence_enabled", "integer", flag(1)],
    ["enable_drafts_synchronization", "integer", flag(1)],
    ["default_language", "text", { default: "en" }],
    ["can_change_user_emails", "integer", flag(0)],
    ["can_create_users", "integer", flag(0)],
  ]);
  await db.schema.createIndex("users_api_key").on("users").column("api_key").unique().execute();
  await db.schema.createIndex("users_realm_email").on("users").columns(["realm_id", "delivery_email"]).unique().execute();

  await table(db, "custom_profile_fields", [
    ["name", "text"],
    ["hint", "text", { default: "" }],
    ["field_type", "integer"],
    ["field_data", "text", { default: "" }],
    ["order", "integer", { default: 0 }],
    ["display_in_profile_summary", "integer", flag(0)],
    ["required", "integer", flag(0)],
    ["editable_by_user", "integer", flag(1)],
  ]);
  await db.schema.createIndex("cpf_realm_name").on("custom_profile_fields").columns(["realm_id", "name"]).unique().execute();

  await table(db, "custom_profile_field_values", [
    ["user_id", "integer"],
    ["field_id", "integer"],
    ["value", "text"],
    ["rendered_value", "text", nullable],
  ]);
  await db.schema.createIndex("cpfv_user_field").on("custom_profile_field_values").columns(["user_id", "field_id"]).unique().execute();
  await db.schema.createIndex("cpfv_field").on("custom_profile_field_values").column("field_id").execute();

  await table(db, "recipients", [
    ["type", "integer"],
    ["type_id", "integer"],
  ]);
  await db.schema.createIndex("recipients_type").on("recipients").columns(["type", "type_id"]).unique().execute();

  await table(db, "channels", [
    ["name", "text"],
    ["description", "text", { default: "" }],
    ["rendered_description", "text", { default: "" }],
    ["invite_only", "integer", flag(0)],
    ["is_web_public", "integer", flag(0)],
    ["history_public_to_subscribers", "integer", flag(1)],
    ["is_announcement_only", "integer", flag(0)],
    ["date_created", "bigint"],
    ["creator_id", "integer", nullable],
    ["recipient_id", "integer", nullable],
    ["first_message_id", "integer", nullable],
    ["message_retention_days", "integer", nullable],
    ["deactivated", "integer", flag(0)],
    ["can_remove_subscribers_group_id", "integer", nullable],
    ["can_administer_channel_group_id", "integer", nullable],
    ["can_send_message_group_id", "integer", nullable],
  ]);
  await db.schema.createIndex("channels_realm_name").on("channels").columns(["realm_id", "name"]).execute();

  await table(db, "default_channels", [["channel_id", "integer"]]);
  await db.schema.createIndex("default_channels_unique").on("default_channels").columns(["realm_id", "channel_id"]).unique().execute();

  await table(db, "subscriptions", [
    ["user_id", "integer"],
    ["recipient_id", "integer"],
    ["active", "integer", flag(1)],
    ["is_muted", "integer", flag(0)],
    ["pin_to_top", "integer", flag(0)],
    ["color", "text", { default: "#c2c2c2" }],
    ["desktop_notifications", "integer", nullable],
    ["audible_notifications", "integer", nullable],
    ["push_notifications", "integer", nullable],
    ["email_notifications", "integer", nullable],
    ["wildcard_mentions_notify", "integer", nullable],
  ]);
  await db.schema.createIndex("subscriptions_user_recipient").on("subscriptions").columns(["user_id", "recipient_id"]).unique().execute();
  await db.schema.createIndex("subscriptions_recipient").on("subscriptions").columns(["recipient_id", "active"]).execute();

  await table(db, "direct_message_groups", [
    ["member_key", "text"],
    ["recipient_id", "integer", nullable],
    ["group_size", "integer"],
  ]);
  await db.schema.createIndex("dm_groups_key").on("direct_message_groups").columns(["realm_id", "member_key"]).unique().execute();

  await table(db, "messages", [
    ["sender_id", "integer"],
    ["recipient_id", "integer"],
    ["channel_id", "integer", nullable],
    ["topic", "text", { default: "" }],
    ["content", "text"],
    ["rendered_content", "text"],
    ["rendered_content_version", "integer", { default: 1 }],
    ["date_sent", "bigint"],
    ["sending_client", "text", { default: "API" }],
    ["last_edit_time", "bigint", nullable],
    ["last_moved_time", "bigint", nullable],
    ["is_me_message", "integer", flag(0)],
    ["has_attachment", "integer", flag(0)],
    ["has_image", "integer", flag(0)],
    ["has_link", "integer", flag(0)],
  ]);
  await db.schema.createIndex("messages_recipient").on("messages").columns(["recipient_id", "id"]).execute();
  await db.schema.createIndex("messages_channel_topic").on("messages").columns(["channel_id", "topic", "id"]).execute();
  await db.schema.createIndex("messages_sender").on("messages").columns(["sender_id", "id"]).execute();

  await table(db, "message_edits", [
    ["message_id", "integer"],
    ["user_id", "integer", nullable],
    ["timestamp", "bigint"],
    ["prev_content", "text", nullable],
    ["prev_rendered_content", "text", nullable],
    ["prev_topic", "text", nullable],
    ["topic", "text", nullable],
    ["prev_channel_id", "integer", nullable],
    ["channel_id", "integer", nullable],
  ]);
  await db.schema.createIndex("message_edits_message").on("message_edits").columns(["message_id", "id"]).execute();

  await table(
    db,
    "user_messages",
    [
      ["user_id", "integer"],
      ["message_id", "integer"],
      ["flags", "integer", { default: 0 }],
    ],
    { id: false },
  );
  await db.schema.createIndex("user_messages_pk").on("user_messages").columns(["user_id", "message_id"]).unique().execute();
  await db.schema.createIndex("user_messages_message").on("user_messages").column("message_id").execute();

  await table(db, "reactions", [
    ["message_id", "integer"],
    ["user_id", "integer"],
    ["emoji_name", "text"],
    ["emoji_code", "text"],
    ["reaction_type", "text"],
  ]);
  await db.schema
    .createIndex("reactions_unique")
    .on("reactions")
    .columns(["message_id", "user_id", "reaction_type", "emoji_code"])
    .unique()
    .execute();

  await table(db, "submessages", [
    ["message_id", "integer"],
    ["sender_id", "integer"],
    ["msg_type", "text"],
    ["content", "text"],
  ]);
  await db.schema.createIndex("submessages_message").on("submessages").column("message_id").execute();

  await table(db, "realm_emoji", [
    ["name", "text"],
    ["file_name", "text"],
    ["author_id", "integer", nullable],
    ["deactivated", "integer", flag(0)],
  ]);

  await table(db, "drafts", [
    ["user_id", "integer"],
    ["type", "text"],
    ["to_json", "text", { default: "[]" }],
    ["topic", "text", { default: "" }],
    ["content", "text"],
    ["last_edit_time", "bigint"],
  ]);
  await db.schema.createIndex("drafts_user").on("drafts").columns(["user_id", "id"]).execute();

  await table(db, "scheduled_messages", [
    ["sender_id", "integer"],
    ["delivery_type", "integer", { default: 1 }],
    ["type", "text"],
    ["channel_id", "integer", nullable],
    ["to_json", "text", { default: "[]" }],
    ["topic", "text", { default: "" }],
    ["content", "text"],
    ["rendered_content", "text"],
    ["scheduled_timestamp", "bigint"],
    ["read_by_sender", "integer", flag(1)],
    ["delivered", "integer", flag(0)],
    ["delivered_message_id", "integer", nullable],
    ["failed", "integer", flag(0)],
    ["failure_message", "text", nullable],
    ["reminder_target_message_id", "integer", nullable],
    ["reminder_note", "text", nullable],
    ["sending_client", "text", { default: "API" }],
  ]);
  await db.schema.createIndex("scheduled_due").on("scheduled_messages").columns(["delivered", "scheduled_timestamp"]).execute();
  await db.schema.createIndex("scheduled_sender").on("scheduled_messages").columns(["sender_id", "delivered"]).execute();

  await table(db, "user_topics", [
    ["user_id", "integer"],
    ["channel_id", "integer"],
    ["topic_name", "text"],
    ["topic_key", "text"],
    ["visibility_policy", "integer"],
    ["last_updated", "bigint"],
  ]);
  await db.schema.createIndex("user_topics_unique").on("user_topics").columns(["user_id", "channel_id", "topic_key"]).unique().execute();

  await table(db, "user_groups", [
    ["name", "text", nullable],
    ["description", "text", { default: "" }],
    ["is_system_group", "integer", flag(0)],
    ["deactivated", "integer", flag(0)],
    ["date_created", "bigint"],
    ["creator_id", "integer", nullable],
    ["can_add_members_group_id", "integer", nullable],
    ["can_join_group_id", "integer", nullable],
    ["can_leave_group_id", "integer", nullable],
    ["can_manage_group_id", "integer", nullable],
    ["can_mention_group_id", "integer", nullable],
    ["can_remove_members_group_id", "integer", nullable],
  ]);
  await db.schema.createIndex("user_groups_realm_name").on("user_groups").columns(["realm_id", "name"]).execute();

  await table(db, "user_group_members", [["group_id", "integer"], ["user_id", "integer"]], { id: false });
  await db.schema.createIndex("ugm_pk").on("user_group_members").columns(["group_id", "user_id"]).unique().execute();
  await db.schema.createIndex("ugm_user").on("user_group_members").column("user_id").execute();

  await table(db, "user_group_subgroups", [["supergroup_id", "integer"], ["subgroup_id", "integer"]], { id: false });
  await db.schema.createIndex("ugs_pk").on("user_group_subgroups").columns(["supergroup_id", "subgroup_id"]).unique().execute();

  await table(db, "invites", [
    ["email", "text"],
    ["referrer_id", "integer"],
    ["invited_as", "integer", { default: 400 }],
    ["invited_at", "bigint"],
    ["expires_at", "bigint", nullable],
    ["status", "integer", { default: 0 }],
    ["notify_referrer_on_join", "integer", flag(1)],
    ["include_realm_default_subscriptions", "integer", flag(0)],
    ["welcome_message_custom_text", "text", nullable],
    ["channel_ids_json", "text", { default: "[]" }],
    ["group_ids_json", "text", { default: "[]" }],
  ]);
  await db.schema.createIndex("invites_realm_email").on("invites").columns(["realm_id", "email"]).execute();

  await table(db, "linkifiers", [
    ["pattern", "text"],
    ["url_template", "text"],
    ["order", "integer", { default: 0 }],
  ]);
  await db.schema.createIndex("linkifiers_realm").on("linkifiers").columns(["realm_id", "order"]).execute();

  await table(db, "navigation_views", [
    ["user_id", "integer"],
    ["fragment", "text"],
    ["is_pinned", "integer", flag(1)],
    ["name", "text", nullable],
  ]);
  await db.schema.createIndex("navigation_views_unique").on("navigation_views").columns(["user_id", "fragment"]).unique().execute();

  await table(db, "push_devices", [
    ["user_id", "integer"],
    ["token_kind", "text"],
    ["push_account_id", "bigint"],
    ["push_public_key", "text"],
    ["bouncer_public_key", "text"],
    ["encrypted_push_registration", "text"],
    ["status", "text", { default: "pending" }],
    ["error_code", "text", nullable],
    ["date_created", "bigint"],
  ]);
  await db.schema.createIndex("push_devices_account").on("push_devices").columns(["user_id", "push_account_id"]).unique().execute();

  await table(
    db,
    "user_status",
    [
      ["user_id", "integer"],
      ["status_text", "text", { default: "" }],
      ["emoji_name", "text", { default: "" }],
      ["emoji_code", "text", { default: "" }],
      ["reaction_type", "text", { default: "unicode_emoji" }],
      ["timestamp", "bigint"],
    ],
    { id: false },
  );
  await db.schema.createIndex("user_status_user").on("user_status").column("user_id").unique().execute();

  await table(
    db,
    "presence",
    [
      ["user_id", "integer"],
      ["last_active_time", "bigint", nullable],
      ["last_connected_time", "bigint", nullable],
      ["last_update_id", "bigint", { default: 0 }],
    ],
    { id: false },
  );
  await db.schema.createIndex("presence_user").on("presence").column("user_id").unique().execute();
  await db.schema.createIndex("presence_realm_update").on("presence").columns(["realm_id", "last_update_id"]).execute();

  await table(db, "presence_sequence", [["last_update_id", "bigint", { default: 0 }]], { id: false });
  await db.schema.createIndex("presence_sequence_realm").on("presence_sequence").column("realm_id").unique().execute();

  await table(db, "alert_words", [
    ["user_id", "integer"],
    ["word", "text"],
  ]);
  await db.schema.createIndex("alert_words_user").on("alert_words").column("user_id").execute();
}

export async function down(): Promise<void> {
  throw new Error("The initial migration cannot be reverted.");
}
