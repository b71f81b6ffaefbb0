/**
 * The narrow a queue was registered with (POST /register `narrow`), as a predicate on
 * message events: a narrowed queue receives only the messages the narrow matches.
 * Operators as upstream's event-queue narrow: channel/stream (name), topic, sender
 * (email), is:dm/private, is:starred/mentioned/alerted (from the event's flags).
 */
import type { ChatEvent } from "./types.js";

export type NarrowPredicate = (event: ChatEvent) => boolean;

interface MessageLike {
  type?: string;
  display_recipient?: unknown;
  subject?: string;
  topic?: string;
  sender_email?: string;
}

export function buildNarrowPredicate(narrow: ReadonlyArray<readonly [string, string]>): NarrowPredicate {
  if (narrow.length === 0) return () => true;
  return (event) => {
    const message = (event.message ?? {}) as MessageLike;
    const flags = Array.isArray(event.flags) ? (event.flags as string[]) : [];
    return narrow.every(([operator, operand]) => matches(operator, operand, message, flags));
  };
}

function matches(operator: string, operand: string, m: MessageLike, flags: string[]): boolean {
  const lowered = operand.toLowerCase();
  switch (operator) {
    case "stream":
    case "channel":
      return m.type === "stream" && typeof m.display_recipient === "string" && m.display_recipient.toLowerCase() === lowered;
    case "topic":
      return m.type === "stream" && (m.subject ?? m.topic ?? "").toLowerCase() === lowered;
    case "sender":
      return (m.sender_email ?? "").toLowerCase() === lowered;
    case "is":
      if (operand === "dm" || operand === "private") return m.type === "private";
      if (operand === "starred") return flags.includes("starred");
      if (operand === "mentioned") return flags.includes("mentioned") || flags.includes("wildcard_mentioned");
      if (operand === "alerted") return flags.includes("has_alert_word");
      return true;
    default:
      return true;
  }
}
