/** Browser sessions (migration 0015). Rows are found by the token's hash, never the token. */
import type { Session } from "../schema.js";
import type { Queryable } from "../tx.js";

export async function insertSession(db: Queryable, row: Omit<Session, "id">): Promise<void> {
  await db.insertInto("sessions").values(row).execute();
}

export async function findSessionByHash(db: Queryable, tokenHash: string): Promise<Session | undefined> {
  return db.selectFrom("sessions").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
}

export async function touchSession(db: Queryable, realmId: number, id: number, at: number): Promise<void> {
  await db.updateTable("sessions").set({ last_seen_at: at }).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

export async function deleteSessionByHash(db: Queryable, realmId: number, tokenHash: string): Promise<void> {
  await db.deleteFrom("sessions").where("realm_id", "=", realmId).where("token_hash", "=", tokenHash).execute();
}

/** Ends the user's sessions, all of them or all but `keepId`. */
export async function deleteUserSessions(db: Queryable, realmId: number, userId: number, keepId?: number): Promise<void> {
  let q = db.deleteFrom("sessions").where("realm_id", "=", realmId).where("user_id", "=", userId);
  if (keepId !== undefined) q = q.where("id", "!=", keepId);
  await q.execute();
}

/** Every organization's expired sessions (the hourly sweep, src/jobs/session-sweep.ts). */
export async function deleteExpiredSessions(db: Queryable, now: number): Promise<void> {
  await db.deleteFrom("sessions").where("expires_at", "<=", now).execute();
}
