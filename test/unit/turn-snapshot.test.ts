/**
 * The read-only SQLite connection reads one snapshot per turn of the event loop
 * (src/db/turn-snapshot.ts): reads of one turn see the same data, the next turn sees what
 * another process committed, this process's own COMMIT ends the snapshot first (a request
 * reads its own writes at once, and the WAL starts over after a checkpoint), and so does the
 * caches' noticing another process's commit.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { sql, type Kysely } from "kysely";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { openDb } from "../../src/db/connect.js";
import { compiledOnce } from "../../src/db/compiled.js";
import { withTransaction } from "../../src/db/tx.js";
import type { DB } from "../../src/db/schema.js";
import { contextFor } from "../../src/server.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-turn-snapshot-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Loose = Kysely<Record<string, Record<string, unknown>>>;
const byName = compiledOnce((db, name: string) => (db as unknown as Loose).selectFrom("t").select(["id", "name"]).where("name", "=", name) as never);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

let file: string;
let db: Kysely<DB>;
/** Another process's connection to the same file. */
let other: SQLite.Database;
beforeEach(async () => {
  file = path.join(dir, `db-${Math.random().toString(36).slice(2)}.sqlite3`);
  db = openDb({ sqlitePath: file });
  await sql`create table t (id integer primary key, name text not null)`.execute(db);
  await sql`insert into t (id, name) values (1, 'one')`.execute(db);
  other = new SQLite(file);
  other.pragma("busy_timeout = 5000");
});
afterEach(async () => {
  other.close();
  await db.destroy();
});

describe("the read connection's snapshot per turn", () => {
  it("gives every read of a turn the same data, and the next turn another process's commit", async () => {
    expect(await byName(db, "one")).toHaveLength(1);
    other.prepare("update t set name = 'uno' where id = 1").run();
    expect(await byName(db, "uno"), "same turn: the snapshot of its first read").toEqual([]);
    expect(await byName(db, "one")).toHaveLength(1);
    await nextTurn();
    expect(await byName(db, "uno")).toEqual([{ id: 1, name: "uno" }]);
    expect(await byName(db, "one")).toEqual([]);
  });

  it("ends before this process's COMMIT: the writer reads its write right after it", async () => {
    await withTransaction(db, async (tx) => {
      await sql`insert into t (id, name) values (2, 'two')`.execute(tx);
      // Past the group's age limit (20 ms), ending the transaction COMMITs at once, in the
      // turn of the read below, which takes the snapshot before that COMMIT.
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(await byName(db, "two"), "not committed yet").toEqual([]);
    });
    expect(await byName(db, "two")).toEqual([{ id: 2, name: "two" }]);
  });

  it("ends when the caches notice another process's commit, so they refill from it", async () => {
    const ctx = contextFor({ ...loadConfig({}), dataDir: dir }, db);
    await nextTurn();
    ctx.caches.checkExternalWrites();
    expect(await byName(db, "one")).toHaveLength(1);
    other.prepare("update t set name = 'uno' where id = 1").run();
    await nextTurn();
    // A read before this turn's check (a timer's) takes the snapshot…
    expect(await byName(db, "uno")).toEqual([{ id: 1, name: "uno" }]);
    other.prepare("update t set name = 'eins' where id = 1").run();
    // …and the first request's check of the turn notices the commit and ends it.
    ctx.caches.checkExternalWrites();
    expect(await byName(db, "eins")).toEqual([{ id: 1, name: "eins" }]);
  });

  it("lets the WAL start over: reads between this process's commits do not hold the checkpoint back", async () => {
    const payload = "x".repeat(4000);
    let writing = true;
    const writers = Array.from({ length: 10 }, async () => {
      for (let i = 0; i < 300; i++) await sql`insert into t (name) values (${payload})`.execute(db);
    });
    const readers = Array.from({ length: 10 }, async () => {
      while (writing) {
        await byName(db, "one");
        await nextTurn();
      }
    });
    let largestWal = 0;
    const watch = setInterval(() => (largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size)), 5);
    await Promise.all(writers);
    writing = false;
    await Promise.all(readers);
    clearInterval(watch);
    largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
    // 12 MB written: the WAL starts over after each automatic checkpoint (1,000 pages, 4 MB)
    // when no reader is on it; a snapshot held across the COMMIT kept it growing (12 MB).
    expect(largestWal).toBeLessThan(8_000_000);
  });
});
