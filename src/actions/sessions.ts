/**
 * Browser sessions: started by a sign-in (or an invitation sign-up), ended by logout, and
 * ended for a user whose password changes or who is deactivated (an organization's
 * deactivation is refused by the account checks on every request). Deleting the rows is
 * enough: the session cache is flushed by every delete of them (caches/write-watcher.ts),
 * here or in another process.
 */
import crypto from "node:crypto";
import { nowSeconds, type AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { deleteSessionByHash, deleteUserSessions, insertSession } from "../db/queries/sessions.js";
import { newCsrfSecret } from "../lib/csrf.js";
import { generateApiKey } from "../lib/secrets.js";

export interface StartedSession {
  /** The sessionid cookie's value; only its hash is stored. */
  token: string;
  csrfSecret: string;
  maxAgeSeconds: number;
}

export function sessionTokenHash(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

export async function doStartSession(ctx: AppContext, realm: Realm, user: User): Promise<StartedSession> {
  const token = generateApiKey();
  const csrfSecret = newCsrfSecret();
  const now = nowSeconds(ctx);
  const maxAgeSeconds = ctx.config.sessionAgeSeconds;
  await insertSession(ctx.db, {
    realm_id: realm.id,
    user_id: user.id,
    token_hash: sessionTokenHash(token),
    csrf_secret: csrfSecret,
    created_at: now,
    last_seen_at: now,
    expires_at: now + maxAgeSeconds,
  });
  return { token, csrfSecret, maxAgeSeconds };
}

export async function doEndSession(ctx: AppContext, realmId: number, token: string): Promise<void> {
  await deleteSessionByHash(ctx.db, realmId, sessionTokenHash(token));
}

/** Ends every session of the user, or every one but `keepSessionId` (the one changing the password). */
export async function endUserSessions(db: Queryable, realmId: number, userId: number, keepSessionId?: number): Promise<void> {
  await deleteUserSessions(db, realmId, userId, keepSessionId);
}
