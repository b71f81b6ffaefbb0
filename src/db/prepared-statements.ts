/**
 * Named prepared statements on PostgreSQL for the queries compiled once (compiled.ts).
 * node-postgres sends every statement unnamed, so PostgreSQL parses and plans it on each
 * execution; for a statement with several subqueries planning costs far more than running
 * it (GET /messages/{id}'s: 11 ms of planning against 0.7 ms of execution, EXPLAIN
 * (ANALYZE, SUMMARY) on the bench's database). A named statement is parsed once per
 * connection and, after a few executions, PostgreSQL keeps a generic plan when it costs no
 * more than the custom ones. node-postgres remembers which names each connection prepared.
 */
import type pg from "pg";

const names = new Map<string, string>();

/** Runs this SQL text as a named prepared statement from now on (a fixed text: compiled once). */
export function prepareOnPostgres(sqlText: string): void {
  if (!names.has(sqlText)) names.set(sqlText, `parley_${names.size + 1}`);
}

type QueryFn = (...args: unknown[]) => unknown;

/** Makes a pool's client send the registered texts as named statements (other calls unchanged). */
export function usePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof text === "string" ? names.get(text) : undefined;
    if (name === undefined) return callback === undefined ? query(text, values) : query(text, values, callback);
    return query({ name, text, values }, callback);
  };
}
