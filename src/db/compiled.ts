/**
 * Queries compiled once. Kysely builds and compiles a query's SQL on every call, which
 * was a third of a cheap request's CPU. For hot, fixed-shape queries, `compiledOnce`
 * compiles the builder the first time (per database handle) and afterwards runs the same
 * SQL text with the new parameters (which the SQLite driver also finds prepared, and
 * PostgreSQL runs as a named prepared statement: prepared-statements.ts).
 *
 * Only for builders whose parameters are exactly the arguments, in order (plain `=`
 * comparisons; no `in` lists, limits or literals that would add or reorder parameters;
 * a whole list travels as one argument made by `integerListParam`).
 *
 * The compiled query is kept per database adapter, which a database handle shares with
 * the transactions opened on it (the SQL text depends only on the dialect), so a query
 * run inside transactions is compiled once too. Never for writes to tables the cache
 * write watcher follows (src/caches/write-watcher.ts): a compiled query skips plugins.
 */
import type { CompiledQuery, Compilable, DialectAdapter } from "kysely";
import type { Queryable } from "./tx.js";
import { prepareOnPostgres } from "./prepared-statements.js";

export function compiledOnce<A extends unknown[], R>(build: (db: Queryable, ...args: A) => Compilable<R>) {
  const compiled = new WeakMap<DialectAdapter, CompiledQuery<R>>();
  return async (db: Queryable, ...args: A): Promise<R[]> => {
    const adapter = db.getExecutor().adapter;
    let query = compiled.get(adapter);
    if (query === undefined) {
      query = build(db, ...args).compile();
      if (query.parameters.length !== args.length || query.parameters.some((p, i) => p !== args[i])) {
        throw new Error(`compiledOnce: parameters of ${query.sql} are not its arguments`);
      }
      compiled.set(adapter, query);
      prepareOnPostgres(query.sql);
    }
    // Same SQL and query node (plugins and the NUL guard still see a SELECT), new parameters.
    const result = await db.executeQuery<R>({ ...query, parameters: args });
    return result.rows;
  };
}
