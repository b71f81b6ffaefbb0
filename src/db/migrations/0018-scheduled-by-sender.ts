/**
 * /register lists the caller's pending scheduled messages and reminders, oldest first. With
 * the sender's index on (sender_id, delivered) only, SQLite chose the delivery worker's
 * index on (delivered, scheduled_timestamp), which gives the order for free, and walked
 * every pending row of every sender: one member with 33,000 scheduled messages made each
 * other member's /register 1.7 ms slower (the bench's register row after the scheduling
 * row). With the timestamp in the sender's index, that index gives both the rows and the
 * order, whoever else has rows pending.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("scheduled_sender").execute();
  await db.schema.createIndex("scheduled_sender").on("scheduled_messages").columns(["sender_id", "delivered", "scheduled_timestamp", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("scheduled_sender").execute();
  await db.schema.createIndex("scheduled_sender").on("scheduled_messages").columns(["sender_id", "delivered"]).execute();
}
