/**
 * The one clock of the server's jobs: the current time and a timer at an absolute time.
 * The server uses the system clock; tests use ManualClock and move time instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls fn once the clock reaches `atMs`; returns a cancel function. */
  setTimer(atMs: number, fn: () => void): () => void;
}

/** setTimeout caps delays at about 24.8 days; longer waits re-arm on the way. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(atMs, fn) {
    let handle: NodeJS.Timeout;
    const arm = () => {
      const delay = atMs - Date.now();
      handle = setTimeout(delay > MAX_TIMEOUT_MS ? arm : fn, Math.max(0, Math.min(delay, MAX_TIMEOUT_MS)));
      handle.unref?.();
    };
    arm();
    return () => clearTimeout(handle);
  },
};

/** A clock that moves only when told to; due timers fire on `advance`/`set`. */
export class ManualClock implements Clock {
  private timers = new Set<{ atMs: number; fn: () => void }>();

  constructor(private nowMs: number) {}

  now(): number {
    return this.nowMs;
  }

  setTimer(atMs: number, fn: () => void): () => void {
    const timer = { atMs, fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /** When the earliest pending timer would fire, or null. */
  nextTimerAt(): number | null {
    let next: number | null = null;
    for (const t of this.timers) if (next === null || t.atMs < next) next = t.atMs;
    return next;
  }

  set(nowMs: number): void {
    this.nowMs = nowMs;
    for (const t of [...this.timers].sort((a, b) => a.atMs - b.atMs)) {
      if (t.atMs > nowMs) continue;
      this.timers.delete(t);
      t.fn();
    }
  }

  advance(ms: number): void {
    this.set(this.nowMs + ms);
  }
}
