/**
 * The realm's notification bot and its new-channel announcements channel:
 * realms.notification_bot_id (the per-realm system bot that sends upstream's automatic
 * notices) and realms.new_stream_announcements_stream_id (where `announce` posts go;
 * null: no announcements). Existing realms announce in their "general" channel; their
 * bot is created on first use (actions/internal-messages.ts).
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("realms").addColumn("notification_bot_id", "integer").execute();
  await db.schema.alterTable("realms").addColumn("new_stream_announcements_stream_id", "integer").execute();
  await sql`
    UPDATE realms SET new_stream_announcements_stream_id = (
      SELECT MIN(channels.id) FROM channels
      WHERE channels.realm_id = realms.id AND channels.name = 'general' AND channels.deactivated = 0
    )
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("realms").dropColumn("new_stream_announcements_stream_id").execute();
  await db.schema.alterTable("realms").dropColumn("notification_bot_id").execute();
}
