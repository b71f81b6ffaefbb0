/**
 * State values that arrive already serialized (cached user lists, presence): /register
 * splices their bytes into the answer instead of building and stringifying objects. An
 * event that arrived during the fetch and changes such a value needs the object: the
 * value is parsed back first (`materializeFor`), which is rare and exact.
 */
import type { State } from "./types.js";

export class RawJson {
  /**
   * @param parts UTF-8 bytes of one JSON value, in order
   * @param touchedBy event types whose appliers (events/apply.ts) change this value
   */
  constructor(
    readonly parts: readonly Buffer[],
    readonly touchedBy: ReadonlySet<string>,
  ) {}

  parse(): unknown {
    return JSON.parse(Buffer.concat(this.parts).toString("utf8"));
  }
}

/** Parses back every raw value that one of `events` would change, so appliers see objects. */
export function materializeFor(state: State, events: ReadonlyArray<{ type: string }>): void {
  if (events.length === 0) return;
  for (const [key, value] of Object.entries(state)) {
    if (value instanceof RawJson && events.some((e) => value.touchedBy.has(e.type))) state[key] = value.parse();
  }
}

/** Every value parsed back (tests, and callers that need plain objects). */
export function materializeAll(state: State): State {
  for (const [key, value] of Object.entries(state)) if (value instanceof RawJson) state[key] = value.parse();
  return state;
}

/**
 * The state as JSON object members without braces (`"a":1,"b":[…]`), as UTF-8 parts:
 * plain values are stringified together, raw values are appended as they are.
 */
export function serializeState(state: State): Buffer[] {
  const plain: State = {};
  const raw: Array<[string, RawJson]> = [];
  for (const [key, value] of Object.entries(state)) {
    if (value instanceof RawJson) raw.push([key, value]);
    else plain[key] = value;
  }
  const head = JSON.stringify(plain).slice(1, -1);
  const parts: Buffer[] = [Buffer.from(head)];
  let first = head.length === 0;
  for (const [key, value] of raw) {
    parts.push(Buffer.from(`${first ? "" : ","}${JSON.stringify(key)}:`), ...value.parts);
    first = false;
  }
  return parts;
}
