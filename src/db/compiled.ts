/**
 * Queries compiled once. Kysely builds and compiles a query's SQL on every call, which
 * was a third of a cheap request's CPU. For hot, fixed-shape queries, `compiledOnce`
 * compiles the builder the first time (per database handle) and afterwards runs the same
 * SQL text with the new parameters (which the SQLite driver also finds prepared).
 *
 * Only for builders whose parameters are exactly the arguments, in order (plain `=`
 * comparisons; no `in` lists, limits or literals that would add or reorder parameters).
 */
import { CompiledQuery, type Compilable, type Kysely, type Transaction } from "kysely";
import type { DB } from "./schema.js";
import type { Queryable } from "./tx.js";

export function compiledOnce<A extends unknown[], R>(build: (db: Queryable, ...args: A) => Compilable<R>) {
  const compiled = new WeakMap<Kysely<DB> | Transaction<DB>, string>();
  return async (db: Queryable, ...args: A): Promise<R[]> => {
    let sqlText = compiled.get(db);
    if (sqlText === undefined) {
      const query = build(db, ...args).compile();
      if (query.parameters.length !== args.length || query.parameters.some((p, i) => p !== args[i])) {
        throw new Error(`compiledOnce: parameters of ${query.sql} are not its arguments`);
      }
      sqlText = query.sql;
      compiled.set(db, sqlText);
    }
    const result = await db.executeQuery<R>(CompiledQuery.raw(sqlText, args));
    return result.rows;
  };
}
