/**
 * Uploaded files:
 * - attachments: one row per uploaded file; path_id is "{realm_id}/{xx}/{random}/{name}",
 *   also its place under {dataDir}/uploads/.
 * - attachment_messages: which messages link which files (recorded on send and edit); a
 *   user may read a file they uploaded or one linked from a message they can read.
 */
import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect.js";

export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("attachments"))
    .addColumn("realm_id", "integer", (c) => c.notNull())
    .addColumn("owner_id", "integer", (c) => c.notNull())
    .addColumn("path_id", "text", (c) => c.notNull())
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("content_type", "text")
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("attachments_path_id").on("attachments").column("path_id").unique().execute();
  await db.schema.createIndex("attachments_realm_owner").on("attachments").columns(["realm_id", "owner_id"]).execute();
  await db.schema
    .createTable("attachment_messages")
    .addColumn("attachment_id", "integer", (c) => c.notNull())
    .addColumn("message_id", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("attachment_messages_pk", ["attachment_id", "message_id"])
    .execute();
  await db.schema.createIndex("attachment_messages_message").on("attachment_messages").column("message_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("attachment_messages").execute();
  await db.schema.dropTable("attachments").execute();
}
