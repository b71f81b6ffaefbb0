/**
 * One published event as shaped for one kind of client, shared by every queue that gets
 * that shape: queues hold references to it, not copies, and its JSON is built once, on
 * the first poll that returns it. Each queue's own event id is spliced in when a poll's
 * body is written (eventsJson), so 10,000 waiting polls cost 10,000 small copies of the
 * same bytes, not 10,000 serializations.
 */
import type { ChatEvent } from "./types.js";

/** A queued event: the event as delivered, with its per-queue id. */
export type QueuedEvent = ChatEvent & { id: number };

export class SharedEvent {
  /** The event's JSON without its closing brace; null while not yet needed. */
  private open: Buffer | null = null;

  constructor(readonly event: ChatEvent) {}

  /** The event as a queue delivers it: a copy with the queue's id as its last key. */
  withId(id: number): QueuedEvent {
    return { ...this.event, id };
  }

  /**
   * The JSON of withId(id), as bytes. An event with an `id` field of its own (whose
   * position the copy keeps) is serialized whole, like the object withId returns.
   */
  jsonWithId(id: number): { open: Buffer; close: string } {
    if (Object.hasOwn(this.event, "id")) return { open: Buffer.from(JSON.stringify(this.withId(id))), close: "" };
    if (this.open === null) {
      const json = JSON.stringify(this.event);
      // An event always has at least its `type`: the JSON ends with "}" after a member.
      this.open = Buffer.from(json.slice(0, -1));
    }
    return { open: this.open, close: `,"id":${id}}` };
  }
}

const EVENTS_OPEN = Buffer.from('"events":[');
const NOTHING = Buffer.alloc(0);

/**
 * `"events":[…]` for consecutive queued events whose first id is firstId: the same bytes
 * as JSON.stringify of their withId copies, written into one buffer, between `before` and
 * `after` (a whole response body is then one buffer, copied once).
 */
export function eventsJson(events: readonly SharedEvent[], firstId: number, before: Buffer = NOTHING, after: Buffer = NOTHING): Buffer {
  const parts = events.map((e, i) => e.jsonWithId(firstId + i));
  let length = before.length + EVENTS_OPEN.length + 1 + Math.max(0, events.length - 1) + after.length;
  for (const p of parts) length += p.open.length + p.close.length; // close is ASCII
  const out = Buffer.allocUnsafe(length);
  let at = before.copy(out, 0);
  at += EVENTS_OPEN.copy(out, at);
  parts.forEach((p, i) => {
    if (i > 0) out[at++] = 0x2c; // ","
    at += p.open.copy(out, at);
    at += out.write(p.close, at, "latin1");
  });
  out[at++] = 0x5d; // "]"
  after.copy(out, at);
  return out;
}
