/**
 * Per-user message flags: bit values stored in user_messages.flags and the names the
 * API uses. Order and bits follow upstream (read 1, starred 2, …).
 */
export const FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  has_alert_word: 64,
  historical: 128,
  is_private: 256,
  active_mobile_push_notification: 512,
} as const;

export type FlagName = keyof typeof FLAG_BITS;

/** Flags stored but never shown to clients. */
const NON_API_FLAGS: ReadonlySet<string> = new Set(["is_private", "active_mobile_push_notification"]);
/** Flags clients may not change with POST /messages/flags. */
const NON_EDITABLE_FLAGS: ReadonlySet<string> = new Set([
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "has_alert_word",
  "historical",
  "is_private",
  "active_mobile_push_notification",
]);

/** Flags of a message the user can see without having a user_messages row. */
export const DEFAULT_HISTORICAL_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

const ORDERED = Object.entries(FLAG_BITS) as Array<[FlagName, number]>;

/** The API flag list for a bit set, in canonical order, plus the deprecated `wildcard_mentioned`. */
export function flagsToList(bits: number): string[] {
  const out: string[] = [];
  for (const [name, bit] of ORDERED) if (bits & bit && !NON_API_FLAGS.has(name)) out.push(name);
  if (bits & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) out.push("wildcard_mentioned");
  return out;
}

export function isApiFlag(name: string): name is FlagName {
  return Object.hasOwn(FLAG_BITS, name) && !NON_API_FLAGS.has(name);
}

export function isEditableFlag(name: string): boolean {
  return isApiFlag(name) && !NON_EDITABLE_FLAGS.has(name);
}
