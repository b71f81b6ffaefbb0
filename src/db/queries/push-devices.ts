/** Push devices (spec 2.14): one row per (user, push_account_id). */
import type { PushDevice } from "../schema.js";
import { compiledOnce } from "../compiled.js";
import type { Queryable } from "../tx.js";

export async function findPushDevice(db: Queryable, realmId: number, userId: number, pushAccountId: number): Promise<PushDevice | undefined> {
  return db
    .selectFrom("push_devices")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("push_account_id", "=", pushAccountId)
    .executeTakeFirst();
}

export const listPushDevices: (db: Queryable, realmId: number, userId: number) => Promise<PushDevice[]> = compiledOnce((db, realmId: number, userId: number) =>
  db.selectFrom("push_devices").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id"),
);

export interface PushDeviceRequest {
  token_kind: string;
  push_public_key: string;
  bouncer_public_key: string;
  encrypted_push_registration: string;
}

/** Creates or resets the row to pending with the new request. */
export async function upsertPendingPushDevice(db: Queryable, realmId: number, userId: number, pushAccountId: number, req: PushDeviceRequest, now: number): Promise<void> {
  const existing = await findPushDevice(db, realmId, userId, pushAccountId);
  const values = { ...req, status: "pending", error_code: null, token: null, ios_app_id: null };
  if (existing) {
    await db.updateTable("push_devices").set(values).where("id", "=", existing.id).execute();
  } else {
    await db.insertInto("push_devices").values({ realm_id: realmId, user_id: userId, push_account_id: pushAccountId, date_created: now, ...values }).execute();
  }
}

export async function setPushDeviceOutcome(
  db: Queryable,
  realmId: number,
  userId: number,
  pushAccountId: number,
  outcome: { status: "active"; token: string; ios_app_id: string | null } | { status: "failed"; error_code: string },
): Promise<void> {
  await db
    .updateTable("push_devices")
    .set(outcome.status === "active" ? { status: "active", error_code: null, token: outcome.token, ios_app_id: outcome.ios_app_id } : { status: "failed", error_code: outcome.error_code })
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("push_account_id", "=", pushAccountId)
    .execute();
}
