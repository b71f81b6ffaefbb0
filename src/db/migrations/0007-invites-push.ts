/**
 * Invitations, sign-up links and push registration:
 * - invites.link_key: the secret of the invitation link (/join/{key}/); is_multiuse marks a
 *   reusable link (email is "" for those).
 * - invite_sends: one row per invitation email sent (first send and resends), for the
 *   organization's daily invitation limit.
 * - push_devices.token / ios_app_id: the decrypted registration, once validated.
 */
import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect.js";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("invites").addColumn("link_key", "text").execute();
  await db.schema.alterTable("invites").addColumn("is_multiuse", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex("invites_link_key").on("invites").column("link_key").unique().execute();

  await withIdColumn(db, db.schema.createTable("invite_sends"))
    .addColumn("realm_id", "integer", (c) => c.notNull())
    .addColumn("invite_id", "integer", (c) => c.notNull())
    .addColumn("sent_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("invite_sends_realm_time").on("invite_sends").columns(["realm_id", "sent_at"]).execute();

  await db.schema.alterTable("push_devices").addColumn("token", "text").execute();
  await db.schema.alterTable("push_devices").addColumn("ios_app_id", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("push_devices").dropColumn("ios_app_id").execute();
  await db.schema.alterTable("push_devices").dropColumn("token").execute();
  await db.schema.dropTable("invite_sends").execute();
  await db.schema.dropIndex("invites_link_key").execute();
  await db.schema.alterTable("invites").dropColumn("is_multiuse").execute();
  await db.schema.alterTable("invites").dropColumn("link_key").execute();
}
