/**
 * Per-client shaping of published events, as upstream does in its event queue:
 * - `message`: markdown or raw content (apply_markdown), null avatar_url for hash-based
 *   avatars when the client computes them (client_hashavatar);
 * - `presence`: no `email` for slim_presence clients; the modern `presences` shape for
 *   clients with the simplified_presence_events capability.
 * - `realm_user` add placeholders of inaccessible users: not for user_list_incomplete clients.
 * Every event's `internal_data` is removed before queueing.
 */
import { HASH_AVATAR_BASE_URL } from "../lib/avatar.js";
import type { EventQueue } from "./queues.js";
import type { ChatEvent, EventInternalData } from "./types.js";

/**
 * Everything shapeEventForQueue reads of a queue, as a string: queues with the same key get
 * the same shaped event, so fan-out shapes once per kind of client, not once per queue.
 * null for the sender's own queue (its copy carries local_message_id).
 */
export function shapeKeyOf(queue: EventQueue, event: ChatEvent): string | null {
  const internal = event.internal_data as EventInternalData | undefined;
  if (internal?.local_message_id !== undefined && internal.sender_queue_id === queue.id) return null;
  let key = queueKeys.get(queue);
  if (key === undefined) queueKeys.set(queue, (key = queueShapeKey(queue)));
  return key;
}

/** A queue's options never change: its key is computed once. */
const queueKeys = new WeakMap<EventQueue, string>();

function queueShapeKey(queue: EventQueue): string {
  const o = queue.opts;
  const caps = o.clientCapabilities;
  const bits = [o.applyMarkdown, o.clientHashavatar, o.slimPresence, caps.user_list_incomplete === true, caps.simplified_presence_events === true];
  const topicName = caps.empty_topic_name === true ? "" : o.emptyTopicDisplayName;
  return `${bits.map((b) => (b ? 1 : 0)).join("")}:${topicName}`;
}

export function shapeEventForQueue(queue: EventQueue, event: ChatEvent): ChatEvent | null {
  const shaped = shapeContent(queue, event);
  return shaped && queue.opts.clientCapabilities.empty_topic_name !== true ? showEmptyTopicName(queue, shaped) : shaped;
}

function shapeContent(queue: EventQueue, event: ChatEvent): ChatEvent | null {
  const internal = event.internal_data as EventInternalData | undefined;
  // Clients with user_list_incomplete leave inaccessible users out: no placeholder for them.
  if (internal?.inaccessible_user === true && queue.opts.clientCapabilities.user_list_incomplete === true) return null;
  if (event.type === "realm_user" && event.op === "add" && internal === undefined && queue.opts.clientHashavatar) return hideHashAvatar(event);
  if (internal === undefined && event.type !== "presence") return event;
  const { internal_data: _drop, ...out } = event;
  if (event.type === "message" && typeof out.message === "object" && out.message !== null) {
    const message = { ...(out.message as Record<string, unknown>) };
    if (!queue.opts.applyMarkdown && internal?.raw_content !== undefined) {
      message.content = internal.raw_content;
      message.content_type = "text/x-markdown";
    }
    if (queue.opts.clientHashavatar && internal?.hash_avatar === true) message.avatar_url = null;
    out.message = message;
    if (
      internal?.local_message_id !== undefined &&
      internal.sender_queue_id === queue.id &&
      internal.sender_id === queue.opts.userId
    ) {
      out.local_message_id = internal.local_message_id;
    }
  }
  if (event.type === "presence") {
    if (queue.opts.clientCapabilities.simplified_presence_events === true && internal?.modern_presence !== undefined) {
      return { type: "presence", presences: internal.modern_presence };
    }
    if (queue.opts.slimPresence) delete out.email;
  }
  return out as ChatEvent;
}

/** Topic fields of channel events that name the empty topic "" by the realm's display name instead. */
const TOPIC_FIELDS: Record<string, readonly string[]> = {
  update_message: ["orig_subject", "subject"],
  delete_message: ["topic"],
  typing: ["topic"],
  user_topic: ["topic_name"],
};

/**
 * Clients without the empty_topic_name capability never see "" as a channel topic: they
 * get realm_empty_topic_display_name, as upstream does for them.
 */
function showEmptyTopicName(queue: EventQueue, event: ChatEvent): ChatEvent {
  const name = queue.opts.emptyTopicDisplayName;
  if (event.type === "message") {
    const message = event.message as Record<string, unknown> | undefined;
    if (message?.type !== "stream" || message.subject !== "") return event;
    return { ...event, message: { ...message, subject: name } };
  }
  const fields = TOPIC_FIELDS[event.type];
  if (!fields || (event.type === "typing" && event.message_type !== "stream")) return event;
  let out: ChatEvent | undefined;
  for (const field of fields) {
    if (event[field] === "") (out ??= { ...event })[field] = name;
  }
  return out ?? event;
}

/**
 * client_hashavatar clients compute hash-based avatars themselves: a new user whose real
 * email is public (API email = real email) gets avatar_url null, as in /register.
 */
function hideHashAvatar(event: ChatEvent): ChatEvent {
  const person = event.person as Record<string, unknown> | undefined;
  if (!person || typeof person.avatar_url !== "string" || !person.avatar_url.startsWith(HASH_AVATAR_BASE_URL)) return event;
  if (person.email !== person.delivery_email) return event;
  return { ...event, person: { ...person, avatar_url: null } };
}
