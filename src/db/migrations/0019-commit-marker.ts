/**
 * SQLite: a one-row table each COMMIT of the group's writer that changed rows also updates,
 * so that COMMIT certainly adds a commit to the WAL (an UPDATE writing a row's own values
 * changes no page, and a COMMIT without a changed page adds none). The caches then tell this
 * process's commits from other processes' by the WAL's commit counter (db/wal-commits.ts).
 */
import { sql, type Kysely } from "kysely";
import { dialectOf } from "../dialect.js";

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== "sqlite") return;
  await sql`create table "commit_marker" ("id" integer primary key, "commits" integer not null)`.execute(db);
  await sql`insert into "commit_marker" ("id", "commits") values (1, 0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== "sqlite") return;
  await sql`drop table "commit_marker"`.execute(db);
}
