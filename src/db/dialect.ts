/**
 * The only file that knows which database is in use. Everything dialect-specific
 * (column types for ids, case-insensitive comparison, JSON helpers) lives here.
 */
import { PostgresAdapter, sql, type CreateTableBuilder, type Kysely, type RawBuilder } from "kysely";

export type DialectName = "sqlite" | "postgres";

export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

/** Adds an auto-incrementing integer primary key named `id`. */
export function withIdColumn<T extends string>(db: Kysely<any>, tb: CreateTableBuilder<T, any>): CreateTableBuilder<T, any> {
  return dialectOf(db) === "postgres"
    ? tb.addColumn("id", "serial", (c) => c.primaryKey())
    : tb.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

/** lower(expr), which both engines implement for ASCII and Unicode alike enough for emails. */
export function lower(ref: string): RawBuilder<string> {
  return sql<string>`lower(${sql.ref(ref)})`;
}

/** Escapes LIKE wildcards in a user-supplied search term (both engines use `\` with ESCAPE). */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Case-insensitive LIKE: ILIKE on PostgreSQL; LIKE is already case-insensitive for ASCII on SQLite. */
export function ilike(db: Kysely<any>, ref: string, pattern: string): RawBuilder<boolean> {
  return dialectOf(db) === "postgres"
    ? sql<boolean>`${sql.ref(ref)} ILIKE ${pattern} ESCAPE '\\'`
    : sql<boolean>`${sql.ref(ref)} LIKE ${pattern} ESCAPE '\\'`;
}

/**
 * Row locking for claims: `FOR UPDATE [SKIP LOCKED]` on PostgreSQL. SQLite has one writer
 * and no row locks: its transactions are already serialized, so the query is unchanged.
 */
export function lockForUpdate<Q extends { forUpdate(): Q; skipLocked(): Q }>(db: Kysely<any>, query: Q, opts: { skipLocked: boolean }): Q {
  if (dialectOf(db) !== "postgres") return query;
  return opts.skipLocked ? query.forUpdate().skipLocked() : query.forUpdate();
}

/**
 * `ref IN (ids)` with the whole list as one parameter (a JSON array on SQLite, an array on
 * PostgreSQL): one statement and a cheap compile whatever the number of ids, where a
 * placeholder per id costs query-builder time and chunks past the engines' parameter limits.
 */
export function inIntegers(db: Kysely<any>, ref: string, ids: readonly number[]): RawBuilder<boolean> {
  return dialectOf(db) === "postgres"
    ? sql<boolean>`${sql.ref(ref)} = any(${[...ids]}::int8[])`
    : sql<boolean>`${sql.ref(ref)} in (select value from json_each(${JSON.stringify(ids)}))`;
}

/**
 * Rows of integers as a table expression (`select`), for INSERT … SELECT of many rows with
 * one parameter per column (PostgreSQL) or one JSON parameter (SQLite).
 */
export function integerRows(db: Kysely<any>, width: number, rows: ReadonlyArray<readonly number[]>): RawBuilder<unknown> {
  const cols = Array.from({ length: width }, (_, i) => i);
  if (dialectOf(db) === "postgres") {
    const arrays = cols.map((i) => sql`${rows.map((r) => r[i])}::int8[]`);
    return sql`select * from unnest(${sql.join(arrays)})`;
  }
  return sql`select ${sql.raw(cols.map((i) => `value ->> ${i}`).join(", "))} from json_each(${JSON.stringify(rows)})`;
}

/** The column type of raw bytes: bytea on PostgreSQL, blob on SQLite (both read back as Buffer). */
export function bytesColumnType(db: Kysely<any>): "bytea" | "blob" {
  return dialectOf(db) === "postgres" ? "bytea" : "blob";
}

/** A list of integers as one parameter value (JSON text on SQLite, an array on PostgreSQL), for `inIntegerList`. */
export function integerListParam(db: Kysely<any>, ids: readonly number[]): string | number[] {
  return dialectOf(db) === "postgres" ? [...ids] : JSON.stringify(ids);
}

/** `ref IN (list)` where `list` comes from integerListParam: usable in queries compiled once. */
export function inIntegerList(db: Kysely<any>, ref: string, list: string | number[]): RawBuilder<boolean> {
  return dialectOf(db) === "postgres" ? sql<boolean>`${sql.ref(ref)} = any(${list}::int8[])` : sql<boolean>`${sql.ref(ref)} in (select value from json_each(${list}))`;
}

/** Largest second member of a pair in `pairRows` (ten bits: message flags fit). */
export const PAIR_SMALL_MAX = 1023;

/**
 * Rows `(…constants, a, b)` for pairs (a, b), b in 0…PAIR_SMALL_MAX, as a table expression
 * for INSERT … SELECT: one statement and one list parameter whatever the number of pairs.
 * SQLite gets one flat JSON array of `a * 1024 + b`: unpacking an array of arrays
 * (`value ->> 0`…) cost it five times the insert itself.
 */
export function pairRows(db: Kysely<any>, constants: readonly number[], pairs: ReadonlyArray<readonly [number, number]>): RawBuilder<unknown> {
  const lists = pairRowsParameters(db, [], pairs);
  if (dialectOf(db) === "postgres") {
    const heads = constants.map((c) => sql`${c}::int8`);
    return sql`select ${sql.join([...heads, sql`t.a`, sql`t.b`])} from unnest(${lists[0]}::int8[], ${lists[1]}::int8[]) as t(a, b)`;
  }
  const heads = constants.map((c) => sql`${c}`);
  return sql`select ${sql.join([...heads, sql`value >> 10`, sql`value & 1023`])} from json_each(${lists[0]})`;
}

/** The parameters of pairRows' table expression, in its order (for a statement compiled once). */
export function pairRowsParameters(db: Kysely<any>, constants: readonly number[], pairs: ReadonlyArray<readonly [number, number]>): unknown[] {
  if (dialectOf(db) === "postgres") {
    checkPairs(pairs);
    return [...constants, pairs.map((p) => p[0]), pairs.map((p) => p[1])];
  }
  return [...constants, packedPairs(pairs)];
}

/** SQLite's list parameter of pairRows: one flat JSON array of `a * 1024 + b` (the message writer's thread unpacks it too). */
export function packedPairs(pairs: ReadonlyArray<readonly [number, number]>): string {
  checkPairs(pairs);
  return JSON.stringify(pairs.map(([a, b]) => a * 1024 + b));
}

function checkPairs(pairs: ReadonlyArray<readonly [number, number]>): void {
  for (const [a, b] of pairs) {
    if (!Number.isSafeInteger(a * 1024) || !Number.isInteger(b) || b < 0 || b > PAIR_SMALL_MAX) throw new Error(`pairRows: (${a}, ${b}) out of range`);
  }
}

/**
 * A multi-row INSERT that stops at the first conflicting row (SQLite `INSERT OR FAIL`) instead
 * of undoing its own rows first (the default, which makes SQLite keep a statement journal in a
 * temporary file for every such statement). Only for statements inside a transaction that any
 * error rolls back whole, as every Parley transaction is; PostgreSQL keeps its one behaviour.
 */
export function withoutStatementUndo<Q extends { orFail(): Q }>(db: Kysely<any>, insert: Q): Q {
  return dialectOf(db) === "postgres" ? insert : insert.orFail();
}

/**
 * An aggregate giving the rows of a (sub)query as JSON text: an array of one object per
 * row with these keys and column references, in no particular order (callers that need
 * one sort the parsed rows: an ordered aggregate costs SQLite a sorter per call); `[]`
 * without rows. SQLite's json_group_array / PostgreSQL's json_agg, as text on both, so
 * callers parse one format. Keys and references are constants of the caller.
 */
export function jsonObjectsAgg(db: Kysely<any>, fields: Readonly<Record<string, string>>): RawBuilder<string> {
  const pairs = sql.join(Object.entries(fields).map(([key, ref]) => sql`${sql.lit(key)}, ${sql.ref(ref)}`));
  return dialectOf(db) === "postgres" ? sql<string>`coalesce(json_agg(json_build_object(${pairs})), '[]')::text` : sql<string>`json_group_array(json_object(${pairs}))`;
}

/**
 * An aggregate giving each row's values of `refs`, in that order, as one JSON array per
 * row inside a JSON array text (`[]` without rows), in no particular order: like
 * jsonObjectsAgg without the keys, for many rows where reading a row per value would cost
 * the driver far more than the engine. References are constants of the caller.
 */
export function jsonArraysAgg(db: Kysely<any>, refs: readonly string[]): RawBuilder<string> {
  const values = sql.join(refs.map((ref) => sql.ref(ref)));
  return dialectOf(db) === "postgres" ? sql<string>`coalesce(json_agg(json_build_array(${values})), '[]')::text` : sql<string>`json_group_array(json_array(${values}))`;
}

/**
 * A table of the integers in a comma-separated text column (e.g. `1,5,9`), one per row in a
 * column named `value`, for use in FROM after the table that holds `ref`.
 */
export function commaSeparatedIntegers(db: Kysely<any>, ref: string, alias: string): RawBuilder<unknown> {
  return dialectOf(db) === "postgres"
    ? sql`unnest(string_to_array(${sql.ref(ref)}, ',')::int8[]) as ${sql.id(alias)}(value)`
    : sql`json_each('[' || ${sql.ref(ref)} || ']') as ${sql.id(alias)}`;
}
