/**
 * Rate-limit counters shared by every node: the same fixed windows as the in-process
 * limiter, counted and decided in one Lua script so parallel requests on several nodes
 * cannot all pass. While Redis is unreachable requests get a 503, never an unchecked pass.
 */
import type { Redis } from "ioredis";
import type { RateDecision, RateLimiter, RateRule } from "../http/rate-limit.js";
import { serviceUnavailable } from "../errors.js";

/** Counts one hit; the first hit of a window starts its expiry. Returns [count, ms left]. */
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); left = tonumber(ARGV[1]) end
return {count, left}
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(
    /** A connection without an offline queue: a command fails at once while Redis is down. */
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly now: () => number,
  ) {}

  async hit(key: string, rule: RateRule): Promise<RateDecision> {
    let count: number;
    let leftMs: number;
    try {
      [count, leftMs] = (await this.redis.eval(HIT, 1, `${this.keyPrefix}rate:${key}`, String(rule.seconds * 1000))) as [number, number];
    } catch (err) {
      throw serviceUnavailable(err as Error);
    }
    const allowed = count <= rule.max;
    return {
      limit: rule.max,
      remaining: Math.max(0, rule.max - count),
      reset: Math.ceil((this.now() + leftMs) / 1000),
      retryAfter: allowed ? 0 : Math.max(0.001, leftMs / 1000),
    };
  }

  async clear(key: string): Promise<void> {
    try {
      await this.redis.del(`${this.keyPrefix}rate:${key}`);
    } catch (err) {
      throw serviceUnavailable(err as Error);
    }
  }
}
