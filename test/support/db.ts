/**
 * A fresh, migrated database for one test file: in-memory SQLite by default, or a new
 * PostgreSQL database (dropped afterwards) when TEST_DATABASE_URL is set.
 */
import crypto from "node:crypto";
import pg from "pg";
import type { Kysely } from "kysely";
import { migrateToLatest, openDb } from "../../src/db/connect.js";
import type { DB } from "../../src/db/schema.js";

export interface TestDb {
  db: Kysely<DB>;
  /** The DATABASE_URL of this database, or undefined for SQLite. */
  url: string | undefined;
  drop(): Promise<void>;
  /** Number of queries executed so far (transaction control statements excluded). */
  queryCount(): number;
}

export async function createTestDb(): Promise<TestDb> {
  const base = process.env.TEST_DATABASE_URL;
  let queries = 0;
  const onQuery = () => {
    queries++;
  };
  const queryCount = () => queries;
  if (!base) {
    const db = openDb({ sqlitePath: ":memory:", onQuery });
    await migrateToLatest(db);
    return { db, url: undefined, drop: () => db.destroy(), queryCount };
  }
  const name = `parley_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = openDb({ databaseUrl: url.toString(), poolSize: 5, onQuery });
  await migrateToLatest(db);
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.destroy();
      // No FORCE: killing connections the pool is still closing makes them emit errors.
      // Wait instead until the last one has gone (55006: database in use).
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      for (let attempt = 0; ; attempt++) {
        try {
          await c.query(`DROP DATABASE IF EXISTS ${name}`);
          break;
        } catch (err) {
          if ((err as { code?: string }).code !== "55006" || attempt >= 50) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      await c.end();
    },
    queryCount,
  };
}
