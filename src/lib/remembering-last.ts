/**
 * A pure function of one string that remembers its last argument and answer. What each
 * request derives from its headers (the User-Agent's product, the Authorization header's
 * credentials) is almost always what the request before derived. A call that throws is
 * not remembered. Answers are shared between calls: they must not be changed.
 *
 * The last argument is found by hash (a one-entry Map), not compared character by
 * character: the time a lookup takes says nothing about how much of a secret (the last
 * Authorization header) a guess got right, as with the API-key cache's own Map.
 */
export function rememberingLast<T>(fn: (input: string) => T): (input: string) => T {
  const last = new Map<string, T>();
  return (input) => {
    const hit = last.get(input);
    if (hit !== undefined) return hit;
    const output = fn(input);
    last.clear();
    last.set(input, output);
    return output;
  };
}
