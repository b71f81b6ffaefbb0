/**
 * Rows built from raw arrays (src/db/sqlite-rows.ts) are the objects better-sqlite3 would
 * have built: same keys in the same order, same values, a later column of the same name
 * winning; after a schema change a `select *` statement shows its new columns.
 */
import SQLite from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { allRows } from "../../src/db/sqlite-rows.js";

function database(): SQLite.Database {
  const db = new SQLite(":memory:");
  db.exec("create table t (id integer primary key, name text, score real, data blob, note text)");
  db.prepare("insert into t (id, name, score, data, note) values (?, ?, ?, ?, ?)").run(1, "one", 1.5, Buffer.from([1, 2]), null);
  db.prepare("insert into t (id, name, score, data, note) values (?, ?, ?, ?, ?)").run(2, "two", -3, null, "n");
  return db;
}

describe("allRows", () => {
  it("gives the objects the driver's object mode gives, for every kind of value", () => {
    const db = database();
    const sql = "select id, name, score, data, note, id * 2 as \"double id\" from t where id >= ? order by id";
    const expected = db.prepare(sql).all(1);
    const stmt = db.prepare(sql);
    for (let i = 0; i < 3; i++) {
      const rows = allRows<Record<string, unknown>>(stmt, [1]);
      expect(rows).toEqual(expected);
      expect(rows.map((r) => Object.keys(r))).toEqual(expected.map((r) => Object.keys(r as object)));
    }
    expect(allRows(stmt, [3])).toEqual([]);
  });

  it("lets a later column of the same name win, as the driver does", () => {
    const db = database();
    const sql = "select a.name as name, b.name as name from t a join t b on b.id = a.id + 1";
    expect(allRows(db.prepare(sql), [])).toEqual(db.prepare(sql).all());
    expect(allRows(db.prepare(sql), [])).toEqual([{ name: "two" }]);
  });

  it("keeps odd column names as plain properties", () => {
    const db = database();
    const rows = allRows<Record<string, unknown>>(db.prepare(`select 1 as "__proto__", 2 as "a""b", 3 as "constructor"`), []);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(Object.entries(rows[0])).toEqual([
      ["__proto__", 1],
      ['a"b', 2],
      ["constructor", 3],
    ]);
  });

  it("follows a statement prepared again after a schema change", () => {
    const db = database();
    const stmt = db.prepare("select * from t where id = ?");
    expect(allRows(stmt, [1])).toEqual([{ id: 1, name: "one", score: 1.5, data: Buffer.from([1, 2]), note: null }]);
    db.exec("alter table t add column extra integer default 7");
    expect(allRows(stmt, [1])).toEqual([{ id: 1, name: "one", score: 1.5, data: Buffer.from([1, 2]), note: null, extra: 7 }]);
  });
});
