/**
 * Upstream's authenticate-by-username rule: a few password attempts per 30 minutes; once
 * that many have failed, every attempt (even a right one) waits for the window to pass.
 * Logins and password changes count against the same key.
 */
import type { Config } from "../config.js";

export interface LoginAttemptRule {
  key: string;
  rule: { seconds: number; max: number };
}

export function loginAttemptRule(config: Pick<Config, "loginAttemptsPer30Minutes">, realmId: number, email: string): LoginAttemptRule | undefined {
  const max = config.loginAttemptsPer30Minutes;
  if (max <= 0) return undefined;
  return { key: `login:${realmId}:${email.toLowerCase()}`, rule: { seconds: 1800, max } };
}
