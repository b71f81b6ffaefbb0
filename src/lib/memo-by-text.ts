/**
 * A pure function of a string, remembered: for hashes of texts that recur on hot paths (a
 * sender's email in every message record, a realm's linkifier list on every send), where a
 * hash object cost tens of µs under load. Bounded, oldest first out; a value depends on its
 * text alone, so nothing can go stale.
 */
export function memoByText<T>(max: number, compute: (text: string) => T): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    let value = known.get(text);
    if (value === undefined) {
      value = compute(text);
      if (known.size >= max) known.delete(known.keys().next().value!);
      known.set(text, value);
    }
    return value;
  };
}
