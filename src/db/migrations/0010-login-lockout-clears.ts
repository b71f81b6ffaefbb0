/**
 * login_lockout_clears: an operator's `parley clear-lockout` request. Login lock-out counters
 * live in the server process; the CLI runs in another one, so it records the clear here and
 * the server, on finding a user locked out, consumes a clear made since the lock-out began.
 */
import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect.js";

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("login_lockout_clears"))
    .addColumn("realm_id", "integer", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("cleared_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("login_lockout_clears_key").on("login_lockout_clears").columns(["realm_id", "email"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("login_lockout_clears").execute();
}
