/**
 * Scheduled messages and reminders (one table, delivery_type 1 or 2, as upstream). Every
 * user-reachable read is scoped by realm and sender; the delivery job's reads are not
 * user-reachable and span realms.
 */
import { sql } from "kysely";
import { compiledOnce } from "../compiled.js";
import { lockForUpdate } from "../dialect.js";
import type { NewScheduledMessage, ScheduledMessage } from "../schema.js";
import type { Queryable } from "../tx.js";

export const DELIVERY_SEND_LATER = 1;
export const DELIVERY_REMIND = 2;

/** The sender's undelivered rows of one kind (failed ones included), by delivery time. */
export const listUndelivered: (db: Queryable, realmId: number, senderId: number, deliveryType: number) => Promise<ScheduledMessage[]> = compiledOnce(
  (db, realmId: number, senderId: number, deliveryType: number) =>
    db
      .selectFrom("scheduled_messages")
      .selectAll()
      .where("realm_id", "=", realmId)
      .where("sender_id", "=", senderId)
      .where("delivery_type", "=", deliveryType)
      .where("delivered", "=", sql.lit(0))
      .orderBy("scheduled_timestamp")
      .orderBy("id"),
);

/** One row of its sender, of one kind; `lock` holds it until the transaction ends (edits vs delivery). */
export async function findOwnScheduled(
  db: Queryable,
  realmId: number,
  senderId: number,
  id: number,
  deliveryType: number,
  lock = false,
): Promise<ScheduledMessage | undefined> {
  const query = db
    .selectFrom("scheduled_messages")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("sender_id", "=", senderId)
    .where("id", "=", id)
    .where("delivery_type", "=", deliveryType);
  return (lock ? lockForUpdate(db, query, { skipLocked: false }) : query).executeTakeFirst();
}

export async function insertScheduled(db: Queryable, row: NewScheduledMessage): Promise<ScheduledMessage> {
  return db.insertInto("scheduled_messages").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateScheduled(db: Queryable, realmId: number, id: number, values: Partial<NewScheduledMessage>): Promise<ScheduledMessage> {
  return db.updateTable("scheduled_messages").set(values).where("realm_id", "=", realmId).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteScheduled(db: Queryable, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("scheduled_messages").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

// ---- Delivery (src/jobs): not user-reachable, across realms ----

/** Ids of pending rows due at `nowSeconds`, oldest first. */
export async function dueScheduledIds(db: Queryable, nowSeconds: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom("scheduled_messages")
    .select("id")
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .where("scheduled_timestamp", "<=", nowSeconds)
    .orderBy("scheduled_timestamp")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** The earliest delivery time of a pending row, or null when nothing is pending. */
export async function nextDueTimestamp(db: Queryable): Promise<number | null> {
  const row = await db
    .selectFrom("scheduled_messages")
    .select((eb) => eb.fn.min("scheduled_timestamp").as("next"))
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

export async function findScheduledById(db: Queryable, id: number): Promise<ScheduledMessage | undefined> {
  return db.selectFrom("scheduled_messages").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Claims a pending row inside the caller's transaction: on PostgreSQL the row stays locked
 * until commit and a row another process holds is skipped. Returns the row as it is now,
 * or undefined when it is gone, delivered, failed or held elsewhere.
 */
export async function claimPending(db: Queryable, id: number): Promise<ScheduledMessage | undefined> {
  const query = db.selectFrom("scheduled_messages").selectAll().where("id", "=", id).where("delivered", "=", 0).where("failed", "=", 0);
  return lockForUpdate(db, query, { skipLocked: true }).executeTakeFirst();
}
