/**
 * Reads compiled once run straight on SQLite's read-only connection (src/db/direct-reads.ts)
 * with what Kysely's layers gave them: the same rows, counted as statements, NULs in text
 * parameters substituted (no match rather than an error), committed data only; inside a
 * transaction the read goes through Kysely and sees the transaction's own writes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql, type Kysely } from "kysely";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connect.js";
import { compiledOnce } from "../../src/db/compiled.js";
import { directReaderOf } from "../../src/db/direct-reads.js";
import { withTransaction } from "../../src/db/tx.js";
import type { DB } from "../../src/db/schema.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-direct-reads-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// A table of the schema is not needed: the builder only has to compile to a plain SELECT.
type Loose = Kysely<Record<string, Record<string, unknown>>>;
const byName = compiledOnce((db, name: string) => (db as unknown as Loose).selectFrom("t").select(["id", "name"]).where("name", "=", name) as never);

let db: Kysely<DB>;
let statements = 0;
beforeEach(async () => {
  statements = 0;
  db = openDb({ sqlitePath: path.join(dir, `db-${Math.random().toString(36).slice(2)}.sqlite3`), onQuery: () => statements++ });
  await sql`create table t (id integer primary key, name text not null)`.execute(db);
  await sql`insert into t (id, name) values (1, 'one'), (2, 'two')`.execute(db);
  statements = 0;
});
afterEach(() => db.destroy());

describe("compiled reads on a SQLite file", () => {
  it("run on the direct reader, give the rows Kysely gives, and are counted", async () => {
    expect(directReaderOf(db)).toBeDefined();
    expect(await byName(db, "two")).toEqual([{ id: 2, name: "two" }]);
    expect(await byName(db, "none")).toEqual([]);
    expect(statements).toBe(2);
    const viaKysely = await (db as unknown as Loose).selectFrom("t").select(["id", "name"]).where("name", "=", "two").execute();
    expect(await byName(db, "two")).toEqual(viaKysely);
  });

  it("find nothing for a parameter holding a NUL (as the NUL guard makes reads do)", async () => {
    await sql`insert into t (id, name) values (3, ${"a\uffffb"})`.execute(db);
    expect(await byName(db, "a\u0000b")).toEqual([{ id: 3, name: "a\uffffb" }]);
  });

  it("see only committed data outside a transaction, and the transaction's own writes inside it", async () => {
    await withTransaction(db, async (tx) => {
      expect(directReaderOf(tx)).toBeUndefined();
      await sql`insert into t (id, name) values (4, 'four')`.execute(tx);
      expect(await byName(tx, "four")).toEqual([{ id: 4, name: "four" }]);
      expect(await byName(db, "four")).toEqual([]);
    });
    expect(await byName(db, "four")).toEqual([{ id: 4, name: "four" }]);
  });

  it("also serve the database's copies with plugins", async () => {
    const withPlugin = db.withPlugin({ transformQuery: (args) => args.node, transformResult: async (args) => args.result });
    expect(directReaderOf(withPlugin)).toBeDefined();
    expect(await byName(withPlugin, "one")).toEqual([{ id: 1, name: "one" }]);
  });

  it("are not taken on an in-memory database (no second connection)", async () => {
    const memory = openDb({ sqlitePath: ":memory:" });
    try {
      expect(directReaderOf(memory)).toBeUndefined();
    } finally {
      await memory.destroy();
    }
  });
});
