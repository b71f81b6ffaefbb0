/**
 * SQLite: user_messages becomes a WITHOUT ROWID table keyed by (user_id, message_id), the
 * key of its unique index until now. A user's rows (flags included) then sit together in
 * key order, and /register's unread read, which walks all of the caller's rows for the
 * unread ones, reads them in sequence instead of looking each up in the table through the
 * index: for a user with 20,000 messages received and 20 unread, 13-16 ms of statement
 * before and 1.1-1.8 ms after, on the shared 2-core machine. A delivery writes one B-tree fewer
 * (no separate unique index; user_messages_message holds the key, so who received a
 * message is read from the index alone). PostgreSQL keeps its table: it has no such form.
 * The table is rebuilt: on a large database this migration takes a while.
 */
import { sql, type Kysely } from "kysely";
import { dialectOf } from "../dialect.js";
import { up as createPrivateIndex } from "./0016-direct-message-index.js";

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== "sqlite") return;
  await rebuild(db, sql`, primary key ("user_id", "message_id")) without rowid`);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== "sqlite") return;
  await rebuild(db, sql`)`);
  await db.schema.createIndex("user_messages_pk").on("user_messages").columns(["user_id", "message_id"]).unique().execute();
}

/** Copies user_messages into a table of the same columns ending with `tail`, and puts its other indexes back. */
async function rebuild(db: Kysely<any>, tail: ReturnType<typeof sql>): Promise<void> {
  await sql`create table "user_messages_new" ("realm_id" integer not null, "user_id" integer not null, "message_id" integer not null, "flags" integer default 0 not null${tail}`.execute(db);
  await sql`insert into "user_messages_new" ("realm_id", "user_id", "message_id", "flags") select "realm_id", "user_id", "message_id", "flags" from "user_messages"`.execute(db);
  await db.schema.dropTable("user_messages").execute();
  await sql`alter table "user_messages_new" rename to "user_messages"`.execute(db);
  await db.schema.createIndex("user_messages_message").on("user_messages").column("message_id").execute();
  await createPrivateIndex(db);
}
