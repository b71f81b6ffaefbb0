/**
 * user_messages_unread (0016) made /register's unread read twice as cheap for a user with
 * thousands of unread messages, but every message delivered unread added an entry to it,
 * at a random place per recipient: inserting a 50-member channel's user_messages rows
 * cost twice as much CPU (0.5 -> 1.0 ms per send, batches of 10 sends per commit), and a
 * send to 10,000 subscribers 10,000 more index writes. Sending is the hotter path; the
 * unread read goes through user_messages_pk again. user_messages_private stays: only
 * direct messages enter it.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("user_messages_unread").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("user_messages_unread")
    .on("user_messages")
    .columns(["user_id", "message_id", "flags", "realm_id"])
    .where(sql`("flags" & 1)`, "=", 0)
    .execute();
}
