/** Topic names: input normalization, truncation, the empty-topic display name, resolved topics. */
import { ApiError } from "../errors.js";
import type { Realm } from "../db/schema.js";

export const RESOLVED_TOPIC_PREFIX = "✔ ";
/** The legacy placeholder clients send for "no topic" (FL 370: read as the empty topic). */
export const LEGACY_NO_TOPIC = "(no topic)";

/** 1-based position of the first control, surrogate or unassigned character, or null. */
function firstUnprintable(s: string): number | null {
  let i = 0;
  for (const ch of s) {
    i += 1;
    if (/[\p{Cc}\p{Cs}\p{Cn}]/u.test(ch)) return i;
  }
  return null;
}

/** Rejects control, surrogate and unassigned characters (upstream check_stream_topic). */
export function checkTopicCharacters(topic: string): void {
  const bad = firstUnprintable(topic);
  if (bad !== null) throw new ApiError(`Invalid character in topic, at position ${bad}!`);
}

/**
 * A topic as received from a client for a channel message: stripped, `(no topic)` and the
 * realm's empty-topic display name read as "", unprintable characters rejected, truncated.
 */
export function normalizeTopicInput(raw: string, realm: Pick<Realm, "empty_topic_display_name" | "max_topic_length">): string {
  let topic = raw.trim();
  checkTopicCharacters(topic);
  if (topic === LEGACY_NO_TOPIC || topic === realm.empty_topic_display_name) topic = "";
  return truncateTopic(topic, realm.max_topic_length);
}

/** Longer topics are cut to max - 3 characters plus "..." (upstream truncate_topic). */
export function truncateTopic(topic: string, maxLength: number): string {
  const chars = [...topic];
  if (chars.length <= maxLength) return topic;
  return chars.slice(0, Math.max(0, maxLength - 3)).join("") + "...";
}

/** The topic as shown to a client: "" becomes the display name unless the client allows empty topics. */
export function displayTopic(topic: string, realm: Pick<Realm, "empty_topic_display_name">, allowEmpty: boolean): string {
  return topic === "" && !allowEmpty ? realm.empty_topic_display_name : topic;
}

export function isResolvedTopic(topic: string): boolean {
  return topic.startsWith(RESOLVED_TOPIC_PREFIX);
}

export function unresolvedTopic(topic: string): string {
  return topic.startsWith(RESOLVED_TOPIC_PREFIX) ? topic.slice(RESOLVED_TOPIC_PREFIX.length) : topic;
}

/** True when `topic` is `prevTopic` resolved or unresolved (such moves do not count as moves). */
export function topicResolveToggled(topic: string, prevTopic: string): boolean {
  return topic === RESOLVED_TOPIC_PREFIX + prevTopic || topic === unresolvedTopic(prevTopic);
}

/** Topic names compare case-insensitively. */
export function sameTopic(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
