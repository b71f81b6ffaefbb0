/**
 * SQLite's `PRAGMA data_version` changes on a connection when another connection (another
 * process: a CLI command writing next to the running server) commits. Reading it is a
 * microsecond, so the server checks it on every request and flushes its caches on a change.
 */
import type SQLite from "better-sqlite3";

export class SqliteDataVersion {
  private readonly statement: SQLite.Statement;
  private last: unknown;

  constructor(database: SQLite.Database) {
    this.statement = database.prepare("PRAGMA data_version").pluck();
    this.last = this.statement.get();
  }

  /** Whether another connection committed since the last call. */
  changed(): boolean {
    const now = this.statement.get();
    if (now === this.last) return false;
    this.last = now;
    return true;
  }
}
