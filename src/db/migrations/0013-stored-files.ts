/**
 * stored_files: the bytes of uploaded files and custom emoji images when they are kept in
 * the database (PARLEY_FILE_STORAGE=database, the default on PostgreSQL), so that every
 * node of a cluster reads what any node stored. `area` is "attachments" or "emoji";
 * `name` is the file's place within its organization and area (src/storage). Every read
 * names the realm.
 * upload_url_keys: the key that signs temporary file URLs, made once and shared by every
 * node, so such a URL made on one node works on all of them.
 */
import type { Kysely } from "kysely";
import { bytesColumnType, withIdColumn } from "../dialect.js";

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("stored_files"))
    .addColumn("realm_id", "integer", (c) => c.notNull())
    .addColumn("area", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("data", bytesColumnType(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex("stored_files_realm_area_name").on("stored_files").columns(["realm_id", "area", "name"]).unique().execute();
  await db.schema
    .createTable("upload_url_keys")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("key", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("upload_url_keys").execute();
  await db.schema.dropTable("stored_files").execute();
}
