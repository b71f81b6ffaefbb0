/**
 * THE allow-list: fields Parley sends that upstream's OpenAPI file (release 10.2, feature
 * level 372) does not list, each confirmed by a newer or more exact upstream source. The
 * contract check removes them before validating, only at the places named here; every
 * other unlisted field fails. Add a field only with its source; a field no source
 * confirms is removed from Parley instead (openapi/README.md, "Versions").
 */
import type { Json, JsonObject } from "./json.js";

interface AllowedField {
  field: string;
  /** Where: the answer or event (`what`, e.g. "POST /register …" or "event stream/create") … */
  what: RegExp;
  /** … and the JSON pointer of the object holding the field, array indexes written `*`. */
  at: RegExp;
  source: string;
}

/** Channel objects: GET /streams, /streams/{id}, subscriptions, /register lists, stream and subscription events. */
const CHANNEL = {
  what: /./,
  at: /^(\/(streams|subscriptions|unsubscribed|never_subscribed)\/\*|\/stream)$/,
};

const CHANNEL_PERMISSIONS_CRATE =
  "upstream zulip.yaml after 10.2 as published in the zulip-api crate 0.0.8 (docs.rs, src/message/channel_permission.rs, generated from zerver/openapi/zulip.yaml)";

export const NEWER_FIELDS: readonly AllowedField[] = [
  { field: "topics_policy", ...CHANNEL, source: "upstream zulip.yaml: channel `topics_policy`, New in Zulip 11.0 (feature level 392) (zulip-api crate TopicsPolicy)" },
  { field: "folder_id", ...CHANNEL, source: "zulip.com/api/update-channel-folder: channel folders New in Zulip 11.0 (feature level 389)" },
  { field: "subscriber_count", ...CHANNEL, source: "zulip.com/api/get-subscriptions: `subscriber_count` of channel objects (include_subscribers=partial, feature level 412)" },
  { field: "can_resolve_topics_group", ...CHANNEL, source: `channel setting New in Zulip 11.0 (feature level 402); ${CHANNEL_PERMISSIONS_CRATE}` },
  { field: "can_delete_any_message_group", ...CHANNEL, source: `channel setting New in Zulip 11.0 (feature level 407); ${CHANNEL_PERMISSIONS_CRATE}` },
  { field: "can_delete_own_message_group", ...CHANNEL, source: `channel setting New in Zulip 11.0 (feature level 407); ${CHANNEL_PERMISSIONS_CRATE}` },
  { field: "can_move_messages_out_of_channel_group", ...CHANNEL, source: `channel setting of Zulip 11.0; ${CHANNEL_PERMISSIONS_CRATE}` },
  { field: "can_move_messages_within_channel_group", ...CHANNEL, source: `channel setting of Zulip 11.0; ${CHANNEL_PERMISSIONS_CRATE}` },
  {
    field: "realm_topics_policy",
    what: /^POST \/register /,
    at: /^$/,
    source: "upstream zulip.yaml: organization-level `realm_topics_policy`, New in Zulip 11.0 (feature level 392) (zulip-api crate TopicsPolicy)",
  },
  {
    field: "resolved_topic_notice_auto_read_policy",
    what: /^POST \/register /,
    at: /^\/(user_settings|realm_user_settings_defaults)$/,
    source: "upstream zulip.yaml after 10.2: user setting (zulip-api crate 0.0.8 src/message/user_settings.rs, ResolvedTopicNoticeAutoReadPolicy)",
  },
  {
    field: "bot_type",
    what: /^GET \/users\/me /,
    at: /^$/,
    source: "upstream zerver/views/users.py get_profile_backend returns the caller's format_user_row record, which carries bot_type for bots; the file's get-own-user schema omits it",
  },
  {
    field: "bot_owner_id",
    what: /^GET \/users\/me /,
    at: /^$/,
    source: "upstream zerver/lib/users.py format_user_row (bot_owner_id for bots), returned by get_profile_backend; the file's get-own-user schema omits it",
  },
  {
    field: "principal",
    what: /HTTP 403$/,
    at: /^$/,
    source: "upstream zerver/lib/exceptions.py PrincipalError (code UNAUTHORIZED_PRINCIPAL, HTTP 403, data field `principal`); the file documents no such error",
  },
  {
    field: "errors",
    what: /^(POST|PATCH) \/realm\/(filters|linkifiers)/,
    at: /^$/,
    source: "upstream zerver/lib/exceptions.py ValidationFailureError (data field `errors`, a field → messages map) raised by the linkifier views",
  },
  {
    field: "navigation_views",
    what: /^POST \/register /,
    at: /^$/,
    source: "upstream-newer.md §12 (navigation views, feature level 390: register state `navigation_views`, zerver/lib/navigation_views.py, verified)",
  },
  {
    field: "push_devices",
    what: /^POST \/register /,
    at: /^$/,
    source: "upstream-newer.md §11 (push registration: register response field `push_devices`, map from push account id to device status)",
  },
  {
    field: "reminders",
    what: /^POST \/register /,
    at: /^$/,
    source: "upstream-newer.md §13 (reminders: GET/DELETE and register state and events at feature level 399, zerver/lib/reminders.py, verified)",
  },
  {
    field: "objections",
    what: /^POST \/user_groups\/\{user_group_id\}\/deactivate .*HTTP 400$/,
    at: /^$/,
    source: "the file's own example of CANNOT_DEACTIVATE_GROUP_IN_USE (deactivate-user-group, feature level 298) carries `objections`; its schema (CodedError) omits it",
  },
  {
    field: "is_system_bot",
    what: /^GET \/users\/\{user_id\} /,
    at: /^\/user$/,
    source:
      "upstream zerver/lib/users.py format_user_row marks cross-realm (system) bots with is_system_bot, and get_members_backend reaches them (access_user_by_id_including_cross_realm); the file lists it only under cross_realm_bots",
  },
];

/**
 * Corrections of the file where it contradicts itself: applied to the loaded document
 * before any schema is prepared. Path: keys from the document root.
 */
export const FILE_CORRECTIONS: ReadonlyArray<{ path: readonly (string | number)[]; value: Json; source: string }> = [
  {
    path: ["components", "schemas", "RateLimitedError", "allOf", 1, "properties", "retry-after", "type"],
    value: "number",
    source:
      "the file's own example answers 28.706807374954224; upstream's RateLimitedError (zerver/lib/exceptions.py) sends the float secs_to_freedom",
  },
];

/**
 * Event forms newer than the file, built from the file's own component schemas. Each
 * replaces the file's schema for events it matches.
 */
export const NEWER_EVENT_FORMS: ReadonlyArray<{ key: string; matches: (event: JsonObject) => boolean; schema: Json; source: string }> = [
  {
    key: "presence",
    matches: (event) => "presences" in event,
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["type", "presences"],
      properties: {
        type: { enum: ["presence"] },
        id: { type: "integer" },
        presences: { type: "object", additionalProperties: { $ref: "#/components/schemas/ModernPresenceFormat" } },
      },
    },
    source:
      "the `simplified_presence_events` client capability (presence events carrying `presences` in the modern format), upstream zulip.yaml after 10.2 as published in the zulip-api crate 0.0.8 (src/message/client_capabilities.rs)",
  },
  {
    key: "stream/update",
    matches: (event) => event.property === "first_message_id" && event.value === null,
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["type", "op", "stream_id", "name", "property", "value"],
      properties: {
        type: { enum: ["stream"] },
        op: { enum: ["update"] },
        id: { type: "integer" },
        stream_id: { type: "integer" },
        name: { type: "string" },
        property: { enum: ["first_message_id"] },
        value: { type: "null" },
      },
    },
    source:
      "upstream zerver/actions/message_delete.py check_update_first_message_id sends `value` = the channel's new first_message_id, None once its last message is deleted; the file's stream/update schema has no null value",
  },
];

function strip(value: Json, what: string, pointer: string): Json {
  if (Array.isArray(value)) return value.map((v) => strip(v, what, `${pointer}/*`));
  if (typeof value !== "object" || value === null) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (NEWER_FIELDS.some((f) => f.field === k && f.at.test(pointer) && f.what.test(what))) continue;
    out[k] = strip(v, what, `${pointer}/${k}`);
  }
  return out;
}

/** A copy of `value` without the allow-listed fields at their places. */
export function stripNewerFields(value: Json, what: string): Json {
  return strip(value, what, "");
}
