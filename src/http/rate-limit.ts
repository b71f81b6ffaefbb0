/**
 * Rate limits, as upstream: API requests per user per minute, password attempts per
 * username, event-queue creations per user. `RateLimiter` is the interface a shared store
 * (Redis) implements for several nodes; `InMemoryRateLimiter` keeps fixed windows in this
 * process. `hit` counts and decides in one step, so parallel requests cannot all pass a
 * check made before any of them is counted.
 */
import { ApiError } from "../errors.js";

export interface RateRule {
  /** Window length in seconds. */
  seconds: number;
  /** Requests allowed per window; 0 disables the rule. */
  max: number;
}

export interface RateDecision {
  limit: number;
  remaining: number;
  /** UNIX seconds when the window resets. */
  reset: number;
  /** Seconds to wait before retrying; 0 when allowed. */
  retryAfter: number;
}

export interface RateLimiter {
  /** Atomically counts one request for `key` under `rule` and says whether it is allowed. */
  hit(key: string, rule: RateRule): Promise<RateDecision>;
  /** Forgets the requests counted for `key` (a successful login clears its failures). */
  clear(key: string): Promise<void>;
}

export class InMemoryRateLimiter implements RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number) {}

  hit(key: string, rule: RateRule): Promise<RateDecision> {
    return Promise.resolve(this.hitNow(key, rule));
  }

  clear(key: string): Promise<void> {
    this.windows.delete(key);
    return Promise.resolve();
  }

  /** Synchronous, hence atomic within this process: no await between reading and counting. */
  private hitNow(key: string, rule: RateRule): RateDecision {
    const now = this.now() / 1000;
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || now - w.start >= rule.seconds) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    const reset = Math.ceil(w.start + rule.seconds);
    const allowed = w.count <= rule.max;
    return {
      limit: rule.max,
      remaining: Math.max(0, rule.max - w.count),
      reset,
      retryAfter: allowed ? 0 : Math.max(0.001, w.start + rule.seconds - now),
    };
  }

  /** Drops finished windows now and then, so memory stays proportional to active keys. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.start > 3600) this.windows.delete(key);
  }
}

/** Counts one request and throws upstream's 429 when `rule` is exceeded; a rule with max 0 is off. */
export async function enforceRateLimit(limiter: RateLimiter, key: string, rule: RateRule): Promise<RateDecision | undefined> {
  if (rule.max <= 0) return undefined;
  const decision = await limiter.hit(key, rule);
  if (decision.retryAfter > 0) throw rateLimitError(decision);
  return decision;
}

export function rateLimitError(decision: RateDecision): ApiError {
  const retry = Number(decision.retryAfter.toFixed(3));
  return new ApiError("API usage exceeded rate limit", {
    status: 429,
    code: "RATE_LIMIT_HIT",
    data: { "retry-after": retry },
    headers: { "Retry-After": String(Math.ceil(retry)) },
  });
}
