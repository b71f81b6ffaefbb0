/**
 * Queries compiled once. Kysely builds and compiles a query's SQL on every call, which
 * was a third of a cheap request's CPU. For hot, fixed-shape queries, `compiledOnce`
 * compiles the builder the first time (per database handle) and afterwards runs the same
 * SQL text with the new parameters (which the SQLite driver also finds prepared).
 *
 * Only for builders whose parameters are exactly the arguments, in order (plain `=`
 * comparisons; no `in` lists, limits or literals that would add or reorder parameters).
 */
import type { CompiledQuery, Compilable, Kysely, Transaction } from "kysely";
import type { DB } from "./schema.js";
import type { Queryable } from "./tx.js";

export function compiledOnce<A extends unknown[], R>(build: (db: Queryable, ...args: A) => Compilable<R>) {
  const compiled = new WeakMap<Kysely<DB> | Transaction<DB>, CompiledQuery<R>>();
  return async (db: Queryable, ...args: A): Promise<R[]> => {
    let query = compiled.get(db);
    if (query === undefined) {
      query = build(db, ...args).compile();
      if (query.parameters.length !== args.length || query.parameters.some((p, i) => p !== args[i])) {
        throw new Error(`compiledOnce: parameters of ${query.sql} are not its arguments`);
      }
      compiled.set(db, query);
    }
    // Same SQL and query node (plugins and the NUL guard still see a SELECT), new parameters.
    const result = await db.executeQuery<R>({ ...query, parameters: args });
    return result.rows;
  };
}
