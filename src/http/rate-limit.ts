/**
 * Rate limits, as upstream: API requests per user per minute, and password attempts per
 * username. In-process fixed windows; a multi-node deployment puts a shared store behind
 * the same `hit` interface.
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

export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number) {}

  /** Counts one request for `key` under `rule` and says whether it is allowed. */
  hit(key: string, rule: RateRule): RateDecision {
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

  /** The decision `hit` would give, without counting a request. */
  peek(key: string, rule: RateRule): RateDecision {
    const now = this.now() / 1000;
    const w = this.windows.get(key);
    if (!w || now - w.start >= rule.seconds) return { limit: rule.max, remaining: rule.max, reset: Math.ceil(now + rule.seconds), retryAfter: 0 };
    const full = w.count >= rule.max;
    return {
      limit: rule.max,
      remaining: Math.max(0, rule.max - w.count),
      reset: Math.ceil(w.start + rule.seconds),
      retryAfter: full ? Math.max(0.001, w.start + rule.seconds - now) : 0,
    };
  }

  /** Drops finished windows now and then, so memory stays proportional to active keys. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.start > 3600) this.windows.delete(key);
  }
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
