/** Lock-out clears recorded by the CLI and consumed by the server's login view. */
import type { Queryable } from "../tx.js";

export async function recordLockoutClear(db: Queryable, realmId: number, email: string, at: number): Promise<void> {
  await db.insertInto("login_lockout_clears").values({ realm_id: realmId, email: email.toLowerCase(), cleared_at: at }).execute();
}

/**
 * Whether a clear was recorded for this login at or after `since` (UNIX seconds); the
 * login's clears are deleted either way, so one clear lifts one lock-out.
 */
export async function consumeLockoutClear(db: Queryable, realmId: number, email: string, since: number): Promise<boolean> {
  const key = email.toLowerCase();
  const row = await db
    .selectFrom("login_lockout_clears")
    .select((eb) => eb.fn.max("cleared_at").as("last"))
    .where("realm_id", "=", realmId)
    .where("email", "=", key)
    .executeTakeFirst();
  const last = row?.last === null || row?.last === undefined ? undefined : Number(row.last);
  if (last === undefined) return false;
  await db.deleteFrom("login_lockout_clears").where("realm_id", "=", realmId).where("email", "=", key).execute();
  return last >= since;
}
