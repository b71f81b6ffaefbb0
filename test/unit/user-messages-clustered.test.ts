/**
 * Migration 0017 on SQLite: user_messages keyed by (user_id, message_id) without a rowid.
 * The rows and their flags survive it, the key still refuses a second row for the same
 * user and message, the unread read walks the caller's rows through that key (no separate
 * index to look each row up from), and down() gives the former table back.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Migrator, sql, type Kysely } from "kysely";
import { openDb } from "../../src/db/connect.js";
import { migrationProvider } from "../../src/db/migrations/index.js";
import type { DB } from "../../src/db/schema.js";

const BEFORE = "0016-direct-message-index";
const AFTER = "0017-user-messages-clustered";

let db: Kysely<DB>;
let migrator: Migrator;
const migrateTo = async (name: string) => {
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
};
const rows = () => db.selectFrom("user_messages").select(["realm_id", "user_id", "message_id", "flags"]).orderBy("user_id").orderBy("message_id").execute();
const tableSql = async () => (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'user_messages'`.execute(db)).rows[0].sql;
const indexNames = async () => (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'user_messages' and sql is not null order by name`.execute(db)).rows.map((r) => r.name);

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("user_messages without rowid (SQLite)", () => {
  beforeEach(async () => {
    db = openDb({ sqlitePath: ":memory:" });
    migrator = new Migrator({ db, provider: migrationProvider, migrationTableName: "parley_migrations" });
    await migrateTo(BEFORE);
    await db
      .insertInto("user_messages")
      .values([
        { realm_id: 1, user_id: 2, message_id: 10, flags: 1 },
        { realm_id: 1, user_id: 2, message_id: 11, flags: 0 },
        { realm_id: 1, user_id: 3, message_id: 10, flags: 256 + 1 },
      ])
      .execute();
  });
  afterEach(() => db.destroy());

  it("keeps every row and its flags, and the key still refuses a second row for a user and message", async () => {
    const before = await rows();
    await migrateTo(AFTER);
    expect(await tableSql()).toMatch(/without rowid/i);
    expect(await rows()).toEqual(before);
    expect(await indexNames()).toEqual(["user_messages_message", "user_messages_private"]);
    await expect(db.insertInto("user_messages").values({ realm_id: 1, user_id: 2, message_id: 10, flags: 0 }).execute()).rejects.toThrow(/UNIQUE|PRIMARY KEY/i);
  });

  it("serves the unread read of a user through the key, in key order", async () => {
    await migrateTo(AFTER);
    const plan = await sql<{ detail: string }>`explain query plan select "message_id", "flags" from "user_messages" where "realm_id" = ${1} and "user_id" = ${2} and ("flags" & 1) = 0 order by "message_id" desc limit 50000`.execute(db);
    const details = plan.rows.map((r) => r.detail);
    expect(details.some((d) => /user_messages USING PRIMARY KEY \(user_id=\?\)/.test(d))).toBe(true);
    expect(details.some((d) => /TEMP B-TREE/.test(d))).toBe(false);
  });

  it("goes back to the table with a rowid and its unique index", async () => {
    const before = await rows();
    await migrateTo(AFTER);
    await migrateTo(BEFORE);
    expect(await tableSql()).not.toMatch(/without rowid/i);
    expect(await rows()).toEqual(before);
    expect(await indexNames()).toEqual(["user_messages_message", "user_messages_pk", "user_messages_private"]);
  });
});
