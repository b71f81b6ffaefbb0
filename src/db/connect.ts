/** Opens the database chosen by the configuration and runs migrations. */
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { Kysely, Migrator, PostgresDialect } from "kysely";
import type { DB } from "./schema.js";
import { migrationProvider } from "./migrations/index.js";
import { withNulGuard } from "./nul-guard.js";
import { groupCommitSqliteDialect } from "./group-commit-dialect.js";
import { CommitGroup } from "./group-commit.js";
import { MessageWriter } from "./message-writer.js";
import { messageWriterStatements } from "./queries/messages.js";
import { WalCommits } from "./wal-commits.js";
import { usePreparedStatements } from "./prepared-statements.js";
import { enableDirectReads } from "./direct-reads.js";
import { TurnSnapshot, type ReadConnection } from "./turn-snapshot.js";

// node-postgres returns int8 (bigint) as strings; our bigints are UNIX seconds and ids, safe as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DbOptions {
  /** postgres://… for PostgreSQL; otherwise SQLite. */
  databaseUrl?: string;
  /** SQLite file path, or ":memory:". */
  sqlitePath?: string;
  poolSize?: number;
  /**
   * Errors of idle PostgreSQL connections (the server restarted, a connection was killed).
   * The pool replaces the connection; without a listener node-postgres would crash the process.
   */
  onIdleError?: (err: Error) => void;
  /** Called once per executed query (tests count queries on hot paths with it). */
  onQuery?: () => void;
}

const CONNECT_TIMEOUT_MS = 5_000;

export function openDb(opts: DbOptions): Kysely<DB> {
  if (opts.databaseUrl) {
    // A request waits at most CONNECT_TIMEOUT_MS for a connection (PostgreSQL down or
    // unreachable: a 503, see db/unavailable.ts, rather than a hang); TCP keep-alive finds
    // connections cut without a word.
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
    pool.on("error", (err) => (opts.onIdleError ?? defaultIdleError)(err));
    // A connection lost while checked out (between the statements of a transaction) reports
    // on the client itself, and node-postgres would crash the process for want of a listener.
    // The client's next query fails (a 503, see db/unavailable.ts) and the pool drops it.
    pool.on("connect", (client) => {
      client.on("error", () => undefined);
      usePreparedStatements(client);
    });
    return new Kysely<DB>({ dialect: withNulGuard(new PostgresDialect({ pool })), log: queryLogger(opts) });
  }
  const file = opts.sqlitePath ?? ":memory:";
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new SQLite(file);
  database.pragma("journal_mode = WAL");
  // FULL syncs the WAL on every commit: a committed message survives a power loss, not
  // only a process crash (NORMAL may roll back the last commits after an OS crash).
  // Concurrent transactions share their commits (group-commit.ts).
  database.pragma("synchronous = FULL");
  database.pragma("foreign_keys = ON");
  database.pragma("busy_timeout = 5000");
  const reader = file === ":memory:" ? null : readConnection(withStatementCache(openReader(file)));
  const writer = withStatementCache(database);
  // On a file, other processes may write too: the caches watch the WAL's commit counter
  // (a first read makes SQLite create the -shm file that holds it).
  if (reader) database.pragma("schema_version");
  const walCommits = reader ? new WalCommits(`${file}-shm`) : undefined;
  const group = new CommitGroup(writer, walCommits);
  // The reader's snapshot ends before each COMMIT: the committing requests then read their writes.
  if (reader) group.beforeEachCommit(() => reader.snapshot.end());
  const onQuery = opts.onQuery;
  const countStatements = onQuery && ((count: number) => {
    for (let i = 0; i < count; i++) onQuery();
  });
  const messageWriter = reader ? new MessageWriter(file, group, () => messageWriterStatements(db), countStatements) : undefined;
  const db = new Kysely<DB>({
    dialect: withNulGuard(
      groupCommitSqliteDialect(writer, reader, group, async () => {
        await messageWriter?.close();
        walCommits?.close();
      }),
    ),
    log: queryLogger(opts),
  });
  if (reader) {
    sqliteParts.set(db.getExecutor().adapter, { messageWriter: messageWriter!, walCommits: walCommits! });
    turnSnapshots.set(db, reader.snapshot);
    enableDirectReads(db, reader, group, opts.onQuery);
  }
  return db;
}

/** The second connection, for reads outside transactions: it sees committed data only. */
function openReader(file: string): SQLite.Database {
  const reader = new SQLite(file);
  reader.pragma("query_only = ON");
  // ORDER BY … LIMIT builds an ephemeral index; on a temporary file (the default) setting it
  // up cost /register's drafts read, empty for most callers, 5 % of the register's time in
  // a profile of the bench's row (28 % of its SQL time, 8 % with this).
  reader.pragma("temp_store = MEMORY");
  reader.pragma("busy_timeout = 5000");
  return reader;
}

function readConnection(database: SQLite.Database): ReadConnection {
  return { database, snapshot: new TurnSnapshot(database) };
}

/** By the dialect adapter, which a database handle shares with its copies with plugins and its transactions. */
const sqliteParts = new WeakMap<object, { messageWriter: MessageWriter; walCommits: WalCommits }>();
const turnSnapshots = new WeakMap<Kysely<DB>, TurnSnapshot>();

/** The read connection's snapshot of a database opened by openDb (SQLite on a file only). */
export function turnSnapshotOf(db: Kysely<DB>): TurnSnapshot | undefined {
  return turnSnapshots.get(db);
}

/** The thread storing messages of a database opened by openDb (SQLite on a file only). */
export function messageWriterOf(db: Kysely<DB>): MessageWriter | undefined {
  return sqliteParts.get(db.getExecutor().adapter)?.messageWriter;
}

/** The WAL commit counter of a database opened by openDb, which shows other processes' commits (SQLite on a file only). */
export function walCommitsOf(db: Kysely<DB>): WalCommits | undefined {
  return sqliteParts.get(db.getExecutor().adapter)?.walCommits;
}

/**
 * Kysely's SQLite driver prepares every query anew, and parsing SQL was a fifth of the
 * CPU of a cheap request. Our queries are parameterized, so their SQL texts are few:
 * keep prepared statements by text (bounded, least recently used first out).
 */
function withStatementCache(database: SQLite.Database, max = 1000): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = database.prepare.bind(database);
  return new Proxy(database, {
    get(target, prop, receiver) {
      if (prop !== "prepare") return Reflect.get(target, prop, receiver);
      return (sql: string) => {
        let stmt = cache.get(sql);
        if (stmt) {
          cache.delete(sql);
        } else {
          stmt = prepare(sql);
          if (cache.size >= max) cache.delete(cache.keys().next().value!);
        }
        cache.set(sql, stmt);
        return stmt;
      };
    },
  });
}

function queryLogger(opts: DbOptions) {
  const onQuery = opts.onQuery;
  return onQuery ? () => onQuery() : undefined;
}

function defaultIdleError(err: Error): void {
  process.stderr.write(`parley: idle database connection lost: ${err.message}\n`);
}

/** Runs the pending migrations; returns the names of those applied now (empty when up to date). */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableName: "parley_migrations" });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ""} failed: ${String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
