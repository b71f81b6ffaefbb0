/**
 * Turns for expensive requests, one per turn of the event loop, in the order they came.
 *
 * Node reads every request that arrived while it was busy in one poll of the event loop
 * and runs each to its end, so a request arriving just after a poll waits for the whole
 * batch read by that poll, then for the batch it joins. Under load, clients whose answer
 * was written last in a batch kept missing the next poll: with 20 connections registering
 * at once, two of them waited twice as long as the others on every request. Here each
 * request waits its turn in a FIFO, and one turn is given per turn of the loop: between
 * two, the loop polls, and requests that arrived meanwhile queue behind those already
 * waiting instead of jumping into a later batch. The cost is one turn of the loop per
 * request (microseconds), worth it only where a request costs milliseconds.
 */
import { endTurnNow } from "../lib/turn-end.js";

const waiting: Array<() => void> = [];
let scheduled = false;

/** Resolves when it is this request's turn (at once, a turn of the loop later, when nobody waits). */
export function fairTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(giveTurn);
    }
  });
}

function giveTurn(): void {
  // Answers ready in this turn go before the expensive request runs (lib/turn-end.ts).
  endTurnNow();
  const next = waiting.shift();
  // The request runs now, until it waits on something outside (I/O, a lock).
  next?.();
  if (waiting.length > 0) setImmediate(giveTurn);
  else scheduled = false;
}
