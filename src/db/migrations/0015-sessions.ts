/**
 * sessions: the browser's sign-in (POST /accounts/login/). Only the SHA-256 of the session
 * token is stored, so a copy of the database does not let anyone sign in; `csrf_secret` is
 * the secret the page's X-CSRFToken must carry (masked). Times are UNIX seconds.
 */
import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect.js";

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("sessions"))
    .addColumn("realm_id", "integer", (c) => c.notNull())
    .addColumn("user_id", "integer", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("csrf_secret", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_seen_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_token_hash").on("sessions").column("token_hash").unique().execute();
  await db.schema.createIndex("sessions_realm_user").on("sessions").columns(["realm_id", "user_id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sessions").execute();
}
