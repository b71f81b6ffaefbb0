/**
 * SQLite write transactions take the write lock when they begin, so a write from another
 * process cannot slip in between a transaction's read and its write ("database is locked").
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connect.js";
import { withTransaction } from "../../src/db/tx.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-immediate-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("SQLite transactions", () => {
  it("hold the write lock from their first statement: another connection cannot write meanwhile", async () => {
    const file = path.join(dir, "db.sqlite3");
    const db = openDb({ sqlitePath: file });
    await db.schema.createTable("t").addColumn("v", "integer").execute();
    // Another process's connection, not willing to wait for the lock.
    const other = new SQLite(file);
    other.pragma("busy_timeout = 0");
    let otherWrite: string | undefined;
    await withTransaction(db, async (tx) => {
      await tx.selectFrom("t" as never).selectAll().execute(); // a read first, as most actions do
      try {
        other.prepare("insert into t (v) values (1)").run();
        otherWrite = "written";
      } catch (err) {
        otherWrite = (err as { code?: string }).code;
      }
      await tx.insertInto("t" as never).values({ v: 2 } as never).execute();
    });
    expect(otherWrite).toBe("SQLITE_BUSY");
    // After the commit the other connection writes as usual.
    other.prepare("insert into t (v) values (3)").run();
    expect(other.prepare("select v from t order by v").all()).toEqual([{ v: 2 }, { v: 3 }]);
    other.close();
    await db.destroy();
  });
});
