/**
 * Kysely's SQLite dialect on a CommitGroup: transactions are logical transactions of the
 * group (resolved after the shared durable COMMIT), and statements outside transactions:
 * - reads run on a second, read-only connection, which sees committed data only (WAL gives
 *   it the last committed snapshot), so no request ever reads a write that may still fail;
 * - writes run as logical transactions of one statement (answered after the COMMIT).
 * Without a second connection (an in-memory database) reads wait for the writer and
 * commit what is pending first, as Kysely's own SQLite driver makes them wait.
 */
import type SQLite from "better-sqlite3";
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from "kysely";
import { CommitGroup } from "./group-commit.js";
import type { ReadConnection } from "./turn-snapshot.js";
import type { ReplayableConnection } from "./tx.js";
import { allRows } from "./sqlite-rows.js";

export function groupCommitSqliteDialect(
  writer: SQLite.Database,
  reader: ReadConnection | null,
  group = new CommitGroup(writer),
  /** Runs first when the database closes (connect.ts: the message writer drains). */
  beforeClose: () => Promise<void> = async () => undefined,
): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new GroupCommitDriver(group, reader, beforeClose),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

class GroupCommitDriver implements Driver {
  constructor(
    private readonly group: CommitGroup,
    private readonly reader: ReadConnection | null,
    private readonly beforeClose: () => Promise<void>,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new LogicalConnection(this.group, this.reader);
  }

  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await this.group.acquire();
    try {
      this.group.begin();
    } catch (err) {
      this.group.release();
      throw err;
    }
    (conn as LogicalConnection).inTransaction = true;
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    const logical = conn as LogicalConnection;
    const committed = this.group.end(logical.replayable);
    logical.inTransaction = false;
    this.group.release();
    await committed;
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    const logical = conn as LogicalConnection;
    // Kysely also calls this when the shared COMMIT failed: the transaction is over then.
    if (!logical.inTransaction) return;
    logical.inTransaction = false;
    try {
      this.group.undo();
    } finally {
      this.group.release();
    }
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.beforeClose();
    this.group.flush();
    this.reader?.database.close();
    this.group.writer.close();
  }
}

/** Reads that may run on the read-only connection (PRAGMAs and the rest go to the writer). */
export const PLAIN_READ = /^\s*(select|with)\b/i;

class LogicalConnection implements DatabaseConnection, ReplayableConnection {
  inTransaction = false;
  /** Its transaction may run again if the group rolls back (see group-commit.ts). */
  replayable = false;

  constructor(
    private readonly group: CommitGroup,
    private readonly reader: ReadConnection | null,
  ) {}

  markReplayable(): void {
    this.replayable = true;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) {
      this.group.statement(this.replayable);
      return run<R>(this.group.writer.prepare(query.sql), query);
    }
    if (this.reader && PLAIN_READ.test(query.sql)) {
      const stmt = this.reader.database.prepare(query.sql);
      if (stmt.readonly) {
        this.reader.snapshot.enter();
        return run<R>(stmt, query);
      }
    }
    await this.group.acquire();
    let result: QueryResult<R>;
    let committed: Promise<void> | undefined;
    try {
      const stmt = this.group.writer.prepare(query.sql);
      if (stmt.readonly) {
        this.group.commit();
        result = run<R>(stmt, query);
      } else {
        this.group.begin();
        try {
          this.group.statement(false);
          result = run<R>(stmt, query);
        } catch (err) {
          this.group.undo();
          throw err;
        }
        committed = this.group.end(false);
      }
    } finally {
      this.group.release();
    }
    await committed;
    return result;
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const result = await this.executeQuery<R>(query);
    for (const row of result.rows) yield { rows: [row] };
  }
}

function run<R>(stmt: SQLite.Statement, query: CompiledQuery): QueryResult<R> {
  const parameters = query.parameters as unknown[];
  if (stmt.reader) return { rows: allRows<R>(stmt, parameters) };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}
