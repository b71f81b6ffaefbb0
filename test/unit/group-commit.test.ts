/**
 * Concurrent transactions (group commit on SQLite, plain transactions on PostgreSQL):
 * every transaction that succeeds is durably committed before it resolves (and before its
 * onCommit callbacks run); one that fails is rolled back alone; nobody reads a write
 * whose transaction has not committed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connect.js";
import { withTransaction } from "../../src/db/tx.js";
import type { DB } from "../../src/db/schema.js";
import { createTestDb, type TestDb } from "../support/db.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-group-commit-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A database plus a way to read it as another process would (committed data only). */
interface Target {
  db: Kysely<DB>;
  committedValues(): Promise<number[]>;
  close(): Promise<void>;
}

async function sqliteFile(): Promise<Target> {
  const file = path.join(dir, `db-${Math.random().toString(36).slice(2)}.sqlite3`);
  const db = openDb({ sqlitePath: file });
  await sql`create table t (v integer not null)`.execute(db);
  const other = new SQLite(file, { readonly: true });
  return {
    db,
    committedValues: async () => (other.prepare("select v from t order by v").all() as Array<{ v: number }>).map((r) => r.v),
    close: async () => {
      other.close();
      await db.destroy();
    },
  };
}

async function testDatabase(): Promise<Target> {
  const t: TestDb = await createTestDb();
  await sql`create table t (v integer not null)`.execute(t.db);
  if (!t.url) {
    // In-memory SQLite: no other connection can see it; the database's own reads stand in.
    return { db: t.db, committedValues: () => values(t.db), close: () => t.drop() };
  }
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  return {
    db: t.db,
    committedValues: async () => (await client.query<{ v: number }>("select v from t order by v")).rows.map((r) => r.v),
    close: async () => {
      await client.end();
      await t.drop();
    },
  };
}

async function values(db: Kysely<DB>): Promise<number[]> {
  const rows = await sql<{ v: number }>`select v from t order by v`.execute(db);
  return rows.rows.map((r) => Number(r.v));
}

const insert = (db: Kysely<DB>, v: number) => sql`insert into t (v) values (${v})`.execute(db);
const tick = () => new Promise((r) => setTimeout(r, 5));

/** `count` concurrent transactions writing i and 100 + i; number `failing` throws after its writes (`pause`: after a wait, the others queued). */
function oneFailing(db: Kysely<DB>, count: number, failing: number, opts: { pause?: boolean } = {}) {
  return Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      withTransaction(db, async (tx) => {
        await insert(tx, i);
        await insert(tx, 100 + i);
        if (opts.pause) await tick();
        if (i === failing) throw new Error("fails");
        return i;
      }),
    ),
  );
}

/**
 * Concurrent transactions, each replayable or not (`kinds`: "r" or "n"); number `failing`
 * throws after its writes. Counts each one's runs and onCommit callbacks.
 */
async function mixed(db: Kysely<DB>, kinds: string, failing: number) {
  const runs = kinds.split("").map(() => 0);
  const committed = kinds.split("").map(() => 0);
  const outcomes = await Promise.allSettled(
    kinds.split("").map((kind, i) =>
      withTransaction(
        db,
        async (tx) => {
          runs[i]++;
          tx.onCommit(() => committed[i]++);
          await insert(tx, i);
          await insert(tx, 100 + i);
          if (i === failing) throw new Error("fails");
          return i;
        },
        { replayable: kind === "r" },
      ),
    ),
  );
  return { statuses: outcomes.map((o) => o.status), runs, committed };
}

/** SQLite's group commit (also the test database unless it is PostgreSQL) replays; PostgreSQL's transactions are independent. */
const groupCommit = (name: string) => name.includes("SQLite") || !process.env.TEST_DATABASE_URL;

const targets: Array<[string, () => Promise<Target>]> = [["the test database", testDatabase]];
if (!process.env.TEST_DATABASE_URL) targets.push(["a SQLite file (reads on a second connection)", sqliteFile]);

describe.each(targets)("concurrent transactions on %s", (_name, open) => {
  let t: Target;
  beforeAll(async () => {
    t = await open();
  });
  afterAll(() => t.close());

  it("all commit, and each is visible to others once it resolves and when its onCommit runs", async () => {
    await sql`delete from t`.execute(t.db);
    const seenAtCommit: Array<Promise<boolean>> = [];
    const seenAtResolve: boolean[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await withTransaction(t.db, async (tx) => {
          await insert(tx, i);
          // Events are published from onCommit: the write is already visible to others then.
          tx.onCommit(() => seenAtCommit.push(t.committedValues().then((v) => v.includes(i))));
        });
        seenAtResolve.push((await t.committedValues()).includes(i));
      }),
    );
    expect(await Promise.all(seenAtCommit)).toEqual(Array.from({ length: 20 }, () => true));
    expect(seenAtResolve.every(Boolean)).toBe(true);
    expect(await t.committedValues()).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("one failing transaction rolls back alone; the others commit", async () => {
    await sql`delete from t`.execute(t.db);
    const outcomes = await oneFailing(t.db, 10, 4);
    expect(outcomes.map((o) => o.status)).toEqual(Array.from({ length: 10 }, (_, i) => (i === 4 ? "rejected" : "fulfilled")));
    const expected = [0, 1, 2, 3, 5, 6, 7, 8, 9, 100, 101, 102, 103, 105, 106, 107, 108, 109];
    expect(await t.committedValues()).toEqual(expected);
    expect(await values(t.db)).toEqual(expected);
  });

  it("the first transaction of a group (no savepoint of its own) fails alone: those queued behind it commit", async () => {
    await sql`delete from t`.execute(t.db);
    const outcomes = await oneFailing(t.db, 5, 0, { pause: true });
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
    const expected = [1, 2, 3, 4, 101, 102, 103, 104];
    expect(await t.committedValues()).toEqual(expected);
    expect(await values(t.db)).toEqual(expected);
    // And the next group starts cleanly after that ROLLBACK.
    await withTransaction(t.db, (tx) => insert(tx, 5));
    expect(await t.committedValues()).toEqual([1, 2, 3, 4, 5, 101, 102, 103, 104]);
  });

  it("a write is not read outside its transaction before it commits, nor ever if it fails", async () => {
    await sql`delete from t`.execute(t.db);
    let inserted!: () => void;
    const insertedOnce = new Promise<void>((r) => (inserted = r));
    const failing = withTransaction(t.db, async (tx) => {
      await insert(tx, 7);
      inserted();
      await tick(); // still open while other requests run
      await tick();
      throw new Error("fails after a while");
    });
    await insertedOnce;
    const readMeanwhile = values(t.db);
    const writeMeanwhile = withTransaction(t.db, (tx) => insert(tx, 8));
    await expect(failing).rejects.toThrow("fails after a while");
    await writeMeanwhile;
    expect(await readMeanwhile).not.toContain(7);
    expect(await values(t.db)).toEqual([8]);
    expect(await t.committedValues()).toEqual([8]);
  });

  it("a replayable transaction failing after its writes undoes only its own: the others commit once, their onCommit runs once", async () => {
    await sql`delete from t`.execute(t.db);
    const { statuses, runs, committed } = await mixed(t.db, "rrrrrr", 3);
    expect(statuses).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(committed).toEqual([1, 1, 1, 0, 1, 1]);
    const expected = [0, 1, 2, 4, 5, 100, 101, 102, 104, 105];
    expect(await t.committedValues()).toEqual(expected);
    expect(await values(t.db)).toEqual(expected);
    // With group commit the three before it shared its group, without savepoints: they ran again.
    if (groupCommit(_name)) expect(runs).toEqual([2, 2, 2, 1, 1, 1]);
    else expect(runs).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it("a transaction that is not replayable is neither undone nor run again for another's failure", async () => {
    await sql`delete from t`.execute(t.db);
    // Behind the one that is not replayable, the failing one has a savepoint: it fails alone.
    const after = await mixed(t.db, "rrnrr", 3);
    expect(after.statuses).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(after.runs).toEqual([1, 1, 1, 1, 1]);
    expect(after.committed).toEqual([1, 1, 1, 0, 1]);
    expect(await t.committedValues()).toEqual([0, 1, 2, 4, 100, 101, 102, 104]);
    // The first of a group not replayable: the failing one behind it has a savepoint too.
    await sql`delete from t`.execute(t.db);
    const first = await mixed(t.db, "nrr", 1);
    expect(first.statuses).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(first.runs).toEqual([1, 1, 1]);
    expect(await t.committedValues()).toEqual([0, 2, 100, 102]);
  });

  it("a statement outside a transaction is committed when it resolves", async () => {
    await sql`delete from t`.execute(t.db);
    await Promise.all([insert(t.db, 1), insert(t.db, 2), withTransaction(t.db, (tx) => insert(tx, 3))]);
    expect(await t.committedValues()).toEqual([1, 2, 3]);
  });
});
