/**
 * Queries compiled once. Kysely builds and compiles a query's SQL on every call, which
 * was a third of a cheap request's CPU. For hot, fixed-shape queries, `compiledOnce`
 * compiles the builder the first time (per database handle) and afterwards runs the same
 * SQL text with the new parameters (which the SQLite driver also finds prepared, and
 * PostgreSQL runs as a named prepared statement: prepared-statements.ts).
 *
 * Only for builders whose parameters are exactly the arguments, in order (plain `=`
 * comparisons; no `in` lists, limits or literals that would add or reorder parameters;
 * a whole list travels as one argument made by `integerListParam`). A fixed LIMIT is
 * written into the SQL with `literalLimit`.
 *
 * The compiled query is kept per database adapter, which a database handle shares with
 * the transactions opened on it (the SQL text depends only on the dialect), so a query
 * run inside transactions is compiled once too. Never for writes to tables the cache
 * write watcher follows (src/caches/write-watcher.ts): a compiled query skips plugins;
 * `compiledWriteOnce` is for those.
 */
import { createQueryId, sql, type CompiledQuery, type Compilable, type DialectAdapter, type RawBuilder } from "kysely";
import type { Queryable } from "./tx.js";
import type SQLite from "better-sqlite3";
import { prepareOnPostgres } from "./prepared-statements.js";
import { directReaderOf, type DirectReader } from "./direct-reads.js";

export function compiledOnce<A extends unknown[], R>(build: (db: Queryable, ...args: A) => Compilable<R>) {
  const compiled = new WeakMap<DialectAdapter, CompiledQuery<R>>();
  /** The read-only statement of each database that has a direct reader (null: not a plain read). */
  const direct = new WeakMap<DirectReader, SQLite.Statement | null>();
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
    const reader = directReaderOf(db);
    if (reader !== undefined) {
      let stmt = direct.get(reader);
      if (stmt === undefined) direct.set(reader, (stmt = reader.statement(query.sql) ?? null));
      if (stmt !== null) return reader.rows<R>(stmt, args);
    }
    // Same SQL and query node (plugins and the NUL guard still see a SELECT), new parameters.
    const result = await db.executeQuery<R>({ ...query, parameters: args });
    return result.rows;
  };
}

/**
 * A write compiled once whose every run still goes through the plugins' transformQuery,
 * with a query id of its own, as a query built anew would: the cache write watcher flushes
 * around it and again when its transaction ends. `parameters` gives the statement's
 * parameters from the arguments (checked against the build's on the first run), for
 * builders whose parameters are not simply the arguments (a list spread over several).
 */
export function compiledWriteOnce<A extends unknown[]>(build: (db: Queryable, ...args: A) => Compilable<unknown>, parameters: (db: Queryable, ...args: A) => unknown[]) {
  const compiled = new WeakMap<DialectAdapter, CompiledQuery<unknown>>();
  return async (db: Queryable, ...args: A): Promise<void> => {
    const executor = db.getExecutor();
    const params = parameters(db, ...args);
    let query = compiled.get(executor.adapter);
    if (query === undefined) {
      query = build(db, ...args).compile();
      if (JSON.stringify(query.parameters) !== JSON.stringify(params)) throw new Error(`compiledWriteOnce: parameters of ${query.sql} are not the given ones`);
      compiled.set(executor.adapter, query);
      prepareOnPostgres(query.sql);
    }
    const queryId = createQueryId();
    await db.executeQuery({ ...query, query: executor.transformQuery(query.query, queryId), queryId, parameters: params });
  };
}

/**
 * A LIMIT written into the SQL text. SQLite (built with STAT4, as better-sqlite3 is) plans
 * with the LIMIT's value, so binding a LIMIT parameter marks the statement for preparing
 * again: every run of a statement with `limit ?` was prepared anew, 5 µs for the drafts
 * read of /register where the read itself is 0.3 µs. A query whose limit is a constant
 * gets it this way (one compiled query per limit: see the `…Query(limit)` factories).
 */
export function literalLimit(limit: number): RawBuilder<number> {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`literalLimit: ${limit} is not a row count`);
  return sql.lit(limit);
}
