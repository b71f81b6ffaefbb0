/**
 * Reads compiled once (compiled.ts) run straight on SQLite's read-only connection when no
 * transaction is involved. Through Kysely the same statement passes about a dozen async
 * layers (executor, connection provider, runtime driver, the NUL guard's proxy, the
 * group-commit connection, the plugins' result hook) that each cost a promise, and on a
 * cached read path (GET /messages/{id}'s access check, the incremental presence poll)
 * that was as much CPU as SQLite's own work.
 *
 * What the layers did for a read is kept: the statement runs on the reader connection (it
 * sees committed data only, as group-commit-dialect.ts routes plain reads), NULs in text
 * parameters become U+FFFF (nul-guard.ts), the query is counted (tests pin statement
 * counts), and the rows are built as sqlite-rows.ts builds them. The write watcher's result
 * hook acts only on writes, which never come here: a statement is taken only when it is a
 * plain SELECT/WITH that SQLite calls read-only. Anything else (PostgreSQL, an in-memory
 * database without a reader, a transaction, a write) goes through Kysely as before.
 */
import type SQLite from "better-sqlite3";
import type { DialectAdapter, Kysely } from "kysely";
import type { Queryable } from "./tx.js";
import { readParameters } from "./nul-guard.js";
import { PLAIN_READ } from "./group-commit-dialect.js";
import { allRows } from "./sqlite-rows.js";
import type { CommitGroup } from "./group-commit.js";
import type { ReadConnection } from "./turn-snapshot.js";

export interface DirectReader {
  /** The statement for `sql` when it is a plain read (undefined: run it through Kysely). */
  statement(sql: string): SQLite.Statement | undefined;
  /** Rows of a statement given by `statement`. */
  rows<R>(stmt: SQLite.Statement, parameters: readonly unknown[]): R[];
  /**
   * COMMITs this process has made (CommitGroup.commits, the message writer thread's included): a value read through the reader
   * while the count was N still holds while it is N, as far as this process's writes go.
   * Other processes' commits (the CLI) are not counted: the caches' check of the WAL's commit counter
   * (caches/index.ts checkExternalWrites, once per turn of the event loop) flushes every
   * cache then, so a cache keyed on this count must be one of them.
   */
  commitCount(): number;
}

/** By the dialect adapter, which a database handle shares with its plugins' copies and its transactions. */
const readers = new WeakMap<DialectAdapter, DirectReader>();

/** Lets compiled reads of `db` (and of its copies with plugins) run on `reader` directly. */
export function enableDirectReads<DB>(db: Kysely<DB>, reader: ReadConnection, group: CommitGroup, onQuery?: () => void): void {
  readers.set(db.getExecutor().adapter, {
    commitCount: () => group.commits,
    statement(sql) {
      if (!PLAIN_READ.test(sql)) return undefined;
      const stmt = reader.database.prepare(sql);
      return stmt.readonly && stmt.reader ? stmt : undefined;
    },
    rows<R>(stmt: SQLite.Statement, parameters: readonly unknown[]): R[] {
      onQuery?.();
      reader.snapshot.enter();
      return allRows<R>(stmt, readParameters(parameters));
    },
  });
}

/** The direct reader of `db`, unless it is a transaction (whose reads must see its own writes) or has none. */
export function directReaderOf(db: Queryable): DirectReader | undefined {
  if (db.isTransaction) return undefined;
  return readers.get(db.getExecutor().adapter);
}
