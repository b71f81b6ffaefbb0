/**
 * The one password check of every sign-in (POST /api/v1/fetch_api_key and the browser's
 * POST /accounts/login/): the per-username attempt limit (login-lockout.ts), scrypt, then the
 * deactivated-organization and deactivated-user rules. Each caller words the outcome its
 * own way (JSON errors for the API, upstream's form messages for the page).
 */
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import { findUserByDeliveryEmail } from "../db/queries/users.js";
import { loginAttemptRule } from "../lib/login-attempts.js";
import { verifyPassword } from "../lib/secrets.js";
import { enforceLoginAttempts } from "./login-lockout.js";

export type PasswordLogin =
  | { ok: true; user: User }
  | { ok: false; reason: "wrong-credentials" | "realm-deactivated" }
  | { ok: false; reason: "user-deactivated"; user: User };

/** Throws the rate-limit error (429 RATE_LIMIT_HIT) when the username is locked out. */
export async function checkPasswordLogin(ctx: AppContext, realm: Realm, email: string, password: string): Promise<PasswordLogin> {
  const attempts = loginAttemptRule(ctx.config, realm.id, email);
  // Counted before the password is checked (as upstream), so parallel guesses cannot all
  // reach the hash; a successful login clears the count.
  if (attempts) await enforceLoginAttempts(ctx, realm.id, email, attempts.key, attempts.rule);
  const user = await findUserByDeliveryEmail(ctx.db, realm.id, email);
  // Verify even when the user is unknown, so timing does not reveal which emails exist.
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) return { ok: false, reason: "wrong-credentials" };
  if (realm.deactivated) return { ok: false, reason: "realm-deactivated" };
  if (!user.is_active) return { ok: false, reason: "user-deactivated", user };
  if (attempts) await ctx.rateLimiter.clear(attempts.key);
  return { ok: true, user };
}

// A valid scrypt hash of a random password: makes the unknown-user path cost the same.
const DUMMY_HASH =
  "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
