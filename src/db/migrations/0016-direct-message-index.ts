/**
 * /register reads a user's newest direct messages. They were found through the index on
 * (user_id, message_id), which holds every message the user ever received, each looked up
 * in the table for its flags: a user with 6,000 channel messages and no direct message
 * paid for 6,000 rows. A partial index, as upstream has, holds only direct-message rows,
 * with the columns the read wants (realm_id included, so it never touches the table).
 * Channel sends never enter it. (A like index of unread rows was measured too and left
 * out: every message delivered unread added an entry at a random place per recipient,
 * which doubled the cost of a send.) 256 is is_private in src/lib/message-flags.ts,
 * written out: a migration never changes.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("user_messages_private")
    .on("user_messages")
    .columns(["user_id", "message_id", "flags", "realm_id"])
    .where(sql`("flags" & 256)`, "<>", 0)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("user_messages_private").execute();
}
