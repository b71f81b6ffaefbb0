/**
 * The password-attempt limit of POST /fetch_api_key. Its counters live in this process;
 * `parley clear-lockout` (another process) records a clear in the database, which this
 * consults only when a login is refused, so the common path costs no query.
 */
import type { AppContext } from "../context.js";
import { consumeLockoutClear } from "../db/queries/login-lockouts.js";
import { enforceRateLimit, rateLimitError, type RateRule } from "./rate-limit.js";

export async function enforceLoginAttempts(ctx: AppContext, realmId: number, email: string, key: string, rule: RateRule): Promise<void> {
  const decision = await ctx.rateLimiter.hit(key, rule);
  if (decision.retryAfter === 0) return;
  // The window began at reset − seconds (reset is rounded up: allow one second).
  const windowStart = decision.reset - rule.seconds - 1;
  if (await consumeLockoutClear(ctx.db, realmId, email, windowStart)) {
    await ctx.rateLimiter.clear(key);
    await enforceRateLimit(ctx.rateLimiter, key, rule);
    return;
  }
  throw rateLimitError(decision);
}
