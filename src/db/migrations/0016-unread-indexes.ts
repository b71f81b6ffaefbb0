/**
 * /register reads a user's unread messages and their newest direct messages. Both were
 * found through the index on (user_id, message_id), which holds every message the user
 * ever received, each looked up in the table for its flags: a user with 6,000 messages
 * (read or not) paid for 6,000 rows even with nothing to report. Two partial indexes, as
 * upstream has, hold only the rows those reads want, with the columns they read (realm_id
 * included, so the queries never touch the table). The bits are the flags read (1) and
 * is_private (256) of src/lib/message-flags.ts, written out: a migration never changes.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("user_messages_unread")
    .on("user_messages")
    .columns(["user_id", "message_id", "flags", "realm_id"])
    .where(sql`("flags" & 1)`, "=", 0)
    .execute();
  await db.schema
    .createIndex("user_messages_private")
    .on("user_messages")
    .columns(["user_id", "message_id", "flags", "realm_id"])
    .where(sql`("flags" & 256)`, "<>", 0)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("user_messages_private").execute();
  await db.schema.dropIndex("user_messages_unread").execute();
}
