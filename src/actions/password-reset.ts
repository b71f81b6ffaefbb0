/** An operator's password reset (`parley reset-password`): a new password, hashed like sign-up's. */
import type { AppContext } from "../context.js";
import { updateUserRow } from "../db/queries/users.js";
import { withTransaction } from "../db/tx.js";
import { endUserSessions } from "./sessions.js";
import type { Realm, User } from "../db/schema.js";
import { generatePassword, hashPassword } from "../lib/secrets.js";
import { sendMail, type MailOutcome } from "../mail/send-mail.js";
import { realmUrl } from "../lib/realm-host.js";

/** Sets a fresh random password and ends every browser session of the user; no event (no client state holds passwords). */
export async function doResetPassword(ctx: AppContext, realm: Realm, user: User): Promise<string> {
  const password = generatePassword();
  const hash = await hashPassword(password);
  await withTransaction(ctx.db, async (tx) => {
    await updateUserRow(tx, realm.id, user.id, { password_hash: hash });
    await endUserSessions(tx, realm.id, user.id);
  });
  return password;
}

/** Mails the new password to the user (SMTP, or the outbox when none is configured). */
export async function mailNewPassword(ctx: AppContext, realm: Realm, user: User, password: string): Promise<MailOutcome> {
  const url = realmUrl(realm.string_id, ctx.config.externalHost);
  return sendMail(ctx.config, {
    to: user.delivery_email,
    subject: `Your new password for ${realm.name}`,
    text: `An administrator of ${realm.name} (${url}) reset your password.\n\nYour new password: ${password}\n\nLog in with it and change it in your settings.\n`,
  });
}
