/**
 * The read-only SQLite connection's statements share one read transaction per turn of the
 * event loop, instead of one each.
 *
 * Outside a transaction every statement that touches the database starts and ends a read
 * transaction of its own: a lock on the WAL's shared memory, a look at the database file and
 * the unlock (three system calls), about 5 µs, where the lookup itself of an empty index
 * range costs 0.2 µs. A /register runs about fifteen such reads, a GET /messages/{id} two.
 *
 * The snapshot starts at the first read of a turn and ends:
 * - when the turn ends (setImmediate), so a reader never sits on an old snapshot;
 * - right before this process COMMITs (group-commit.ts): a request reads its own writes, as
 *   before, and the checkpoint that may follow the COMMIT is not held back by a reader
 *   (a WAL with a reader on it cannot restart from its beginning);
 * - when another process's commit is noticed (the caches' check of the WAL's commit counter, once per turn,
 *   see caches/index.ts): the caches refill from the new data, not from the old snapshot.
 * What a turn's reads see is then what the caches already assume: another process's commit
 * made during a turn may be seen from the next turn on.
 */
import type SQLite from "better-sqlite3";

/** The read-only connection with its snapshot: every statement run on it enters the snapshot first. */
export interface ReadConnection {
  database: SQLite.Database;
  snapshot: TurnSnapshot;
}

export class TurnSnapshot {
  private readonly beginStatement: SQLite.Statement;
  private readonly endStatement: SQLite.Statement;
  private open = false;
  private endScheduled = false;

  constructor(private readonly reader: SQLite.Database) {
    this.beginStatement = reader.prepare("BEGIN");
    this.endStatement = reader.prepare("COMMIT");
  }

  /** Called before each statement on the reader: starts the turn's snapshot if none is open. */
  enter(): void {
    if (this.open) return;
    this.beginStatement.run();
    this.open = true;
    if (!this.endScheduled) {
      this.endScheduled = true;
      setImmediate(this.endOfTurn);
    }
  }

  /** Ends the snapshot now (the next read starts a new one). */
  end(): void {
    if (!this.open) return;
    this.open = false;
    if (this.reader.open && this.reader.inTransaction) this.endStatement.run();
  }

  private readonly endOfTurn = (): void => {
    this.endScheduled = false;
    this.end();
  };
}
