/**
 * Channels are looked up by name case-insensitively (`lower(name) = ?`, upstream's iexact)
 * on every message sent to a channel by name. The index on (realm_id, name) only narrowed
 * that to the realm, and each of its channels had its name lowered: the lookup grew with
 * the number of channels. An index on the expression itself finds the row directly, on
 * both engines.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("channels_realm_lower_name").on("channels").expression(sql`"realm_id", lower("name")`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("channels_realm_lower_name").execute();
}
