/**
 * Uploading custom emoji:
 * - realm_emoji.is_animated: the stored image is animated (a still PNG sits next to it).
 * - realm_emoji_active_name: one active emoji per name in a realm (upstream's constraint),
 *   so two concurrent uploads of one name cannot both succeed.
 * - realms.can_add_custom_emoji_group_id: who may upload (upstream's default: members);
 *   existing organizations get their role:members system group.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("realm_emoji").addColumn("is_animated", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await sql`CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (realm_id, name) WHERE deactivated = 0`.execute(db);
  await db.schema.alterTable("realms").addColumn("can_add_custom_emoji_group_id", "integer").execute();
  await sql`UPDATE realms SET can_add_custom_emoji_group_id = (
    SELECT g.id FROM user_groups g WHERE g.realm_id = realms.id AND g.name = 'role:members' AND g.is_system_group = 1
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("realms").dropColumn("can_add_custom_emoji_group_id").execute();
  await sql`DROP INDEX realm_emoji_active_name`.execute(db);
  await db.schema.alterTable("realm_emoji").dropColumn("is_animated").execute();
}
