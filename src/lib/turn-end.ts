/**
 * The end of a turn's batch: API answers leave together at the end of the event loop's
 * poll phase instead of one by one as each request finishes (http/rest.ts awaits it).
 *
 * Each answer is a socket write, and on the loopback a write whose reader sleeps wakes it
 * up: under load the client slept between answers written tens of microseconds apart, and
 * the write was a third to half of the main thread's time (GET /users/me, presence polls).
 * Written back to back, the first wakes the client and the rest find it awake. A bare
 * Fastify server doing 40 µs of work per request, measured with the bench's client:
 * 13,600–14,000 req/s answering at once, 16,600–16,800 answering at the turn's end, with
 * a lower p99 (bench notes in the README). The wait is the rest of the batch a poll read,
 * and nothing when a request comes alone.
 *
 * Answers resumed by an immediate (a group commit's members, db/group-commit.ts) would wait
 * for the next turn's end: a whole poll of new requests later. The group commit therefore
 * asks for the turn's end when it schedules its COMMIT, so that end comes right after the
 * COMMIT, in the same check phase.
 */
let pending: { promise: Promise<void>; resolve: () => void; since: number } | null = null;

/**
 * The longest an answer waits for its turn's end, in ms: a poll may read hundreds of
 * requests, and the first answers would otherwise wait for all of them. A batch older
 * than this goes when the next answer asks, and that answer starts a new one.
 */
export const MAX_HOLD_MS = 1;

/** Resolves at the end of this poll phase (the check phase, right after it), with every answer ready by then. */
export function turnEnd(): Promise<void> {
  if (pending !== null && performance.now() - pending.since > MAX_HOLD_MS) endTurnNow();
  if (pending === null) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    pending = { promise, resolve, since: performance.now() };
    setImmediate(endTurnNow);
  }
  return pending.promise;
}

/**
 * Lets what waits for the turn's end go now: before an expensive request's fair turn
 * (http/fair-turns.ts), so that cheap answers ready in this turn do not wait for it.
 */
export function endTurnNow(): void {
  const ready = pending;
  pending = null;
  ready?.resolve();
}
