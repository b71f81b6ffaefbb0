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
