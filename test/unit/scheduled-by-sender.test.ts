/**
 * Migration 0018 on SQLite: a sender's pending scheduled messages (what /register lists) are
 * read through the sender's index, in its order, not by walking every sender's pending rows
 * through the delivery worker's index; the worker's read keeps its own index.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Migrator, sql, type Kysely } from "kysely";
import { openDb } from "../../src/db/connect.js";
import { migrationProvider } from "../../src/db/migrations/index.js";
import type { DB } from "../../src/db/schema.js";

let db: Kysely<DB>;
const planOf = async (query: ReturnType<typeof sql>) => (await sql<{ detail: string }>`explain query plan ${query}`.execute(db)).rows.map((r) => r.detail).join("; ");

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("scheduled messages by sender (SQLite)", () => {
  beforeEach(async () => {
    db = openDb({ sqlitePath: ":memory:" });
    const { error } = await new Migrator({ db, provider: migrationProvider, migrationTableName: "parley_migrations" }).migrateToLatest();
    if (error) throw error;
  });
  afterEach(() => db.destroy());

  it("lists one sender's pending rows through the sender's index, already in order", async () => {
    const plan = await planOf(
      sql`select * from "scheduled_messages" where "realm_id" = ${1} and "sender_id" = ${2} and "delivery_type" = ${1} and "delivered" = 0 order by "scheduled_timestamp", "id"`,
    );
    expect(plan).toMatch(/USING INDEX scheduled_sender \(sender_id=\? AND delivered=\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it("leaves the delivery worker's read of due rows on its own index", async () => {
    const plan = await planOf(sql`select * from "scheduled_messages" where "delivered" = 0 and "scheduled_timestamp" <= ${100} order by "scheduled_timestamp", "id" limit 100`);
    expect(plan).toMatch(/USING INDEX scheduled_due/);
  });
});
