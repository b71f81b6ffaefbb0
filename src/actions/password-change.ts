/**
 * Changing one's own password (upstream json_change_settings with old_password/new_password):
 * the old password is checked under the same per-username attempt limit as a login, then the
 * organization's password policy, then the new scrypt hash is stored. The API key stays;
 * the user's other browser sessions end (as upstream), the one making the change stays.
 */
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import { findUserById, updateUserRow } from "../db/queries/users.js";
import { ApiError } from "../errors.js";
import { isPasswordStrong } from "../lib/password-strength.js";
import { hashPassword, verifyPassword } from "../lib/secrets.js";
import { loginAttemptRule } from "../lib/login-attempts.js";
import { withTransaction } from "../db/tx.js";
import { endUserSessions } from "./sessions.js";

export async function doChangePassword(
  ctx: AppContext,
  realm: Realm,
  actor: User,
  oldPassword: string,
  newPassword: string,
  currentSessionId?: number,
): Promise<void> {
  const attempts = loginAttemptRule(ctx.config, realm.id, actor.delivery_email);
  if (attempts) {
    // Counted before the hash is checked, so parallel guesses cannot all reach it.
    const decision = await ctx.rateLimiter.hit(attempts.key, attempts.rule);
    if (decision.retryAfter > 0) {
      throw new ApiError(`You're making too many attempts! Try again in ${Math.floor(decision.retryAfter)} seconds.`);
    }
  }
  const user = (await findUserById(ctx.db, realm.id, actor.id)) ?? actor;
  if (!(await verifyPassword(oldPassword, user.password_hash))) throw new ApiError("Wrong password!");
  if (attempts) await ctx.rateLimiter.clear(attempts.key);
  if (!isPasswordStrong(newPassword)) throw new ApiError("New password is too weak!");
  const hash = await hashPassword(newPassword);
  await withTransaction(ctx.db, async (tx) => {
    await updateUserRow(tx, realm.id, user.id, { password_hash: hash });
    await endUserSessions(tx, realm.id, user.id, currentSessionId);
  });
}
