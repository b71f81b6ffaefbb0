/**
 * State values that arrive already serialized (cached user lists, presence, channel
 * records): /register splices their bytes into the answer instead of building and
 * stringifying objects. Such a value sits in the state behind an accessor: whatever reads
 * or replaces it (an applier of an event that arrived during the fetch) gets the parsed
 * object, and from then on the state holds that object, serialized as any other value.
 * No list of which event touches which key is needed: the appliers' own reads decide.
 */
import type { State } from "./types.js";

export class RawJson {
  /** @param parts UTF-8 bytes of one JSON value, in order */
  constructor(readonly parts: readonly Buffer[]) {}

  parse(): unknown {
    return JSON.parse(Buffer.concat(this.parts).toString("utf8"));
  }
}

/** Each state's values still held serialized, by key. */
const rawValues = new WeakMap<State, Map<string, RawJson>>();

/** Sets `state[key]` to a serialized value, parsed only if something reads or replaces it. */
export function setRaw(state: State, key: string, raw: RawJson): void {
  let raws = rawValues.get(state);
  if (!raws) rawValues.set(state, (raws = new Map()));
  raws.set(key, raw);
  const settle = (value: unknown) => {
    raws.delete(key);
    Object.defineProperty(state, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(state, key, {
    enumerable: true,
    configurable: true,
    get: () => settle(raw.parse()),
    set: (value: unknown) => void settle(value),
  });
}

/**
 * The state as JSON object members without braces (`"a":1,"b":[…]`), as UTF-8 parts,
 * after `head` (members put first): values still serialized are appended as they are,
 * the others are stringified together.
 */
export function serializeState(head: State, state: State): Buffer[] {
  const raws = rawValues.get(state);
  const plain: State = { ...head };
  const raw: Array<[string, RawJson]> = [];
  for (const key of Object.keys(state)) {
    const serialized = raws?.get(key);
    if (serialized) raw.push([key, serialized]);
    else plain[key] = state[key];
  }
  const members = JSON.stringify(plain).slice(1, -1);
  const parts: Buffer[] = [Buffer.from(members)];
  let first = members.length === 0;
  for (const [key, value] of raw) {
    parts.push(Buffer.from(`${first ? "" : ","}${JSON.stringify(key)}:`), ...value.parts);
    first = false;
  }
  return parts;
}
