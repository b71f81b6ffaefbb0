/**
 * compiledWriteOnce: a write compiled once still passes through the plugins on every run
 * (the cache write watcher flushes around it), each run with its own query id and its own
 * parameters.
 */
import { sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledWriteOnce } from "../../src/db/compiled.js";
import { pairRows, pairRowsParameters } from "../../src/db/dialect.js";
import { createTestDb, type TestDb } from "../support/db.js";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  await sql`create table pairs (k integer not null, a integer not null, b integer not null)`.execute(t.db);
});
afterAll(() => t.drop());

/** Records the query ids each plugin hook sees. */
class Recorder implements KyselyPlugin {
  readonly transformed: unknown[] = [];
  readonly results: unknown[] = [];
  transformQuery(args: PluginTransformQueryArgs) {
    this.transformed.push(args.queryId);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    this.results.push(args.queryId);
    return args.result;
  }
}

const insertPairs = compiledWriteOnce(
  (db, k: number, pairs: Array<[number, number]>) =>
    db
      .insertInto("pairs" as never)
      .columns(["k", "a", "b"] as never)
      .expression(pairRows(db, [k], pairs) as never),
  (db, k, pairs) => pairRowsParameters(db, [k], pairs),
);

describe("compiledWriteOnce", () => {
  it("runs each write through the plugins with a query id of its own, with its own parameters", async () => {
    const recorder = new Recorder();
    const db = t.db.withPlugin(recorder);
    await insertPairs(db, 1, [[10, 1], [11, 2]]); // compiles (the build passes the plugin once more)
    const compiledAt = recorder.transformed.length;
    await insertPairs(db, 2, [[20, 3]]);
    await insertPairs(db, 3, [[30, 4], [31, 5], [32, 6]]);
    // Two runs after the first: a transformQuery each, and a result with the same id each.
    const runs = recorder.transformed.slice(compiledAt);
    expect(runs).toHaveLength(2);
    expect(new Set([...runs, recorder.transformed[compiledAt - 1]]).size).toBe(3);
    expect(recorder.results.slice(-2)).toEqual(runs);
    const rows = await sql<{ k: number; a: number; b: number }>`select k, a, b from pairs order by a`.execute(t.db);
    expect(rows.rows.map((r) => [Number(r.k), Number(r.a), Number(r.b)])).toEqual([
      [1, 10, 1],
      [1, 11, 2],
      [2, 20, 3],
      [3, 30, 4],
      [3, 31, 5],
      [3, 32, 6],
    ]);
  });
});
