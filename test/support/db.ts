/**
 * A fresh, migrated database for one test file: in-memory SQLite by default, or a new
 * PostgreSQL database (dropped afterwards) when TEST_DATABASE_URL is set.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { Kysely } from "kysely";
import { migrateToLatest, openDb } from "../../src/db/connect.js";
import type { DB } from "../../src/db/schema.js";

export interface TestDb {
  db: Kysely<DB>;
  /** The DATABASE_URL of this database, or undefined for SQLite. */
  url: string | undefined;
  /** SQLite in a file: its path (another process's connection opens it). */
  sqlitePath?: string;
  drop(): Promise<void>;
  /** Number of queries executed so far (transaction control statements excluded). */
  queryCount(): number;
}

export interface TestDbOptions {
  /** SQLite in a file, as servers run it (a second, read-only connection serves plain reads); ignored on PostgreSQL. */
  sqliteFile?: boolean;
}

export async function createTestDb(opts: TestDbOptions = {}): Promise<TestDb> {
  const base = process.env.TEST_DATABASE_URL;
  let queries = 0;
  const onQuery = () => {
    queries++;
  };
  const queryCount = () => queries;
  if (!base) {
    // TEST_SQLITE_FILE=1 runs every suite on a file (direct reads on the second connection).
    const inFile = opts.sqliteFile ?? process.env.TEST_SQLITE_FILE === "1";
    const dir = inFile ? fs.mkdtempSync(path.join(os.tmpdir(), "parley-test-db-")) : undefined;
    const sqlitePath = dir ? path.join(dir, "parley.sqlite3") : undefined;
    const db = openDb({ sqlitePath: sqlitePath ?? ":memory:", onQuery });
    await migrateToLatest(db);
    const drop = async () => {
      await db.destroy();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    };
    return { db, url: undefined, sqlitePath, drop, queryCount };
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
