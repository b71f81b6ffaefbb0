/**
 * Events as delivered by GET /events (each also gets an `id` when queued).
 * Families add their event shapes to this union as they are built.
 */
export type ChatEvent = { type: string; [key: string]: unknown };

/**
 * Server-side extras an action may attach to an event as `internal_data`; the queue
 * uses them to shape the event per client and strips them before delivery
 * (src/events/shape.ts).
 */
export interface EventInternalData {
  /** `message` events: the Markdown source, for queues registered with apply_markdown=false. */
  raw_content?: string;
  /** `message` events: the sender uses a hash-based avatar the client may compute (client_hashavatar). */
  hash_avatar?: boolean;
  /** `message` events: the sender's client-side id, echoed only to the queue that sent it. */
  local_message_id?: string;
  sender_queue_id?: string | null;
  sender_id?: number;
  /** `presence` events: the modern entry, for clients with simplified_presence_events. */
  modern_presence?: Record<string, { active_timestamp: number; idle_timestamp: number }>;
  /** `user_group` events: only for queues whose include_deactivated_groups capability is this value. */
  include_deactivated_groups?: boolean;
  /** `realm_user` add of a placeholder for a user the recipient cannot access: not for user_list_incomplete clients. */
  inaccessible_user?: boolean;
}

/**
 * Control event on the bus, never queued: the QueueManager ends every queue of the
 * listed users (deactivation), answering their waiting polls with an error.
 */
export const END_USER_QUEUES_EVENT = "end_user_queues";
