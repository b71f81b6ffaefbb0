/**
 * Which cached values an event makes stale. The default is everything of the event's
 * realm: a new event type flushes until someone decides it need not. The busy types
 * (messages, flags, presence, typing…) touch nothing cached.
 */
import type { PublishedEvent } from "../events/publisher.js";
import type { Change } from "./change.js";

/** Events about messages delivered, moved or deleted: the highest message ids. */
const MESSAGE_ROWS = new Set(["message", "update_message", "delete_message"]);

/** Events that change what existing messages' records show (the new message of a `message` event is in no record yet). */
const MESSAGE_RECORDS = new Set(["update_message", "delete_message", "reaction", "submessage"]);

const NO_CACHED_STATE = new Set([
  "update_message_flags",
  "typing",
  "typing_edit_message",
  "presence",
  "drafts",
  "scheduled_messages",
  "reminders",
  "user_topic",
  "muted_topics",
  "attachment",
  "navigation_view",
  "push_device",
  "invites_changed",
  "heartbeat",
  "default_streams",
]);

/** Event types a user's own settings change sends to that user. */
const OWN_SETTINGS = new Set(["user_settings", "update_display_settings", "update_global_notifications"]);

export function changesOf({ realmId, event, userIds }: PublishedEvent): Change[] {
  const type = event.type;
  if (MESSAGE_RECORDS.has(type)) {
    const records: Change = { kind: "messageRecords", realmId, messageIds: messageIdsOf(event) };
    return MESSAGE_ROWS.has(type) ? [{ kind: "messages", realmId }, records] : [records];
  }
  if (MESSAGE_ROWS.has(type)) return [{ kind: "messages", realmId }];
  if (type === "realm_linkifiers") return [{ kind: "linkifiers", realmId }];
  if (NO_CACHED_STATE.has(type)) return [];
  if (type === "realm") return [{ kind: "realm", realmId }];
  if (type === "stream" || type === "channel") return [{ kind: "channels", realmId }];
  if (type === "subscription") return [{ kind: "subscriptions", realmId }];
  if (type === "user_status") return [{ kind: "statuses", realmId }];
  if (type === "realm_emoji") return [{ kind: "emoji", realmId }];
  if (type === "user_group") return [{ kind: "groups", realmId }];
  if (type === "custom_profile_fields") return [{ kind: "profile", realmId }];
  if (OWN_SETTINGS.has(type)) return userIds.map((userId) => ({ kind: "user", realmId, userId }));
  if (type === "realm_user" || type === "realm_bot") {
    const { op, person } = event as { op?: string; person?: { user_id?: unknown } };
    const userId = op !== "add" && typeof person?.user_id === "number" ? person.user_id : undefined;
    return [{ kind: "user", realmId, userId }];
  }
  return [{ kind: "everything", realmId }];
}

/** The messages an event is about (`message_ids`, else `message_id`); undefined (the whole realm) when it names none. */
function messageIdsOf(event: PublishedEvent["event"]): number[] | undefined {
  const { message_ids: ids, message_id: id } = event as { message_ids?: unknown; message_id?: unknown };
  const all = [...(Array.isArray(ids) ? ids : []), ...(id === undefined ? [] : [id])];
  return all.length > 0 && all.every((m): m is number => typeof m === "number") ? all : undefined;
}
