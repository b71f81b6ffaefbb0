/**
 * Group commit for SQLite: concurrent logical transactions share one durable COMMIT.
 *
 * With synchronous=FULL every COMMIT waits for an fsync (about a millisecond here), and
 * better-sqlite3 waits synchronously: one commit per request caps writes at about a
 * thousand a second and stalls every other request meanwhile. Instead, logical
 * transactions run one after another, each inside a SAVEPOINT of one physical
 * transaction (BEGIN IMMEDIATE: the write lock is taken at once, so no other process can
 * slip a write in between a read and a write), except the first: it is alone in the
 * physical transaction, so a plain ROLLBACK undoes it alone, and it skips the savepoint's
 * journal (a copy of every page it changes: about 50 for a send to a 50-member channel,
 * and a send at a low rate is always first). The physical transaction COMMITs once a
 * turn of the event loop (setImmediate) added no transaction to it, or GROUP_WAIT_MS after
 * it began, or earlier when it grows past a bound. A logical transaction resolves only after that COMMIT, so nothing is
 * acknowledged or announced before it is durable; one that fails rolls back to its own
 * savepoint and the others are untouched; if the COMMIT itself fails, every member fails.
 */
import type SQLite from "better-sqlite3";

/** Commit without waiting for the loop to drain once this many transactions are pending, or this old. */
const MAX_BATCH = 200;
const MAX_BATCH_AGE_MS = 20;
/** How long a batch keeps waiting for more while every loop turn brings another transaction. */
const GROUP_WAIT_MS = 2;
const SAVEPOINT = "parley_logical_tx";

interface Member {
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class CommitGroup {
  /** Holder of the writer: one logical transaction (or non-transactional statement) at a time. */
  private busy = false;
  private readonly waiting: Array<() => void> = [];
  private open = false;
  private openedAt = 0;
  private members: Member[] = [];
  private commitScheduled = false;
  /** A transaction ended since the last scheduled check. */
  private joined = false;
  /** The running logical transaction has a savepoint (it is not the first of the physical one). */
  private inSavepoint = false;
  /**
   * COMMITs done so far. Every write of this process reaches the database through this
   * group, so while the count stands still nothing new has become visible to the reader
   * connection (other processes' commits are not counted: see direct-reads.ts).
   */
  commits = 0;

  constructor(readonly writer: SQLite.Database) {
    // A SAVEPOINT journals the original of every page its transaction changes first. Past
    // 64 KiB that journal went to a temporary file: a send to 50 subscribers touches about
    // 50 index pages, and writing them out tripled the cost of its INSERT. In memory it
    // holds one logical transaction's pages at most (durability is the WAL's, unchanged).
    writer.pragma("temp_store = MEMORY");
  }

  /** Waits for the writer; every caller must call release() afterwards. */
  async acquire(): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Hands the writer to the next waiter, or schedules the COMMIT when nobody waits. */
  release(): void {
    if (this.open && (this.members.length >= MAX_BATCH || Date.now() - this.openedAt >= MAX_BATCH_AGE_MS)) this.commit();
    const next = this.waiting.shift();
    if (next) {
      next(); // stays busy: ownership passes on
      return;
    }
    this.busy = false;
    if (this.open) this.scheduleCommit();
  }

  /** Starts a logical transaction (the caller holds the writer). */
  begin(): void {
    // A long run of back-to-back transactions still commits every MAX_BATCH_AGE_MS.
    if (this.open && Date.now() - this.openedAt >= MAX_BATCH_AGE_MS) this.commit();
    if (!this.open) {
      this.writer.exec("begin immediate");
      this.open = true;
      this.openedAt = Date.now();
      this.inSavepoint = false;
      return;
    }
    this.writer.exec(`savepoint ${SAVEPOINT}`);
    this.inSavepoint = true;
  }

  /**
   * Ends a logical transaction successfully; the promise settles with the shared COMMIT.
   * The caller releases the writer right after (synchronously), so the COMMIT can follow.
   */
  end(): Promise<void> {
    if (this.inSavepoint) this.writer.exec(`release ${SAVEPOINT}`);
    this.joined = true;
    return new Promise<void>((resolve, reject) => this.members.push({ resolve, reject }));
  }

  /** Undoes a failed logical transaction alone; the caller then releases the writer. */
  undo(): void {
    if (!this.writer.inTransaction) {
      // SQLite rolled the whole physical transaction back (e.g. disk full): the
      // transactions that ended before this one lost their writes too.
      this.failAll(new Error("The database rolled back the transaction"));
      return;
    }
    if (!this.inSavepoint) {
      // The first transaction of the physical one: nobody else's writes are in it yet.
      this.writer.exec("rollback");
      this.open = false;
      return;
    }
    this.writer.exec(`rollback to ${SAVEPOINT}`);
    this.writer.exec(`release ${SAVEPOINT}`);
  }

  /** Commits now if a physical transaction is open (the caller holds the writer or nobody does). */
  commit(): void {
    if (!this.open) return;
    const members = this.members;
    this.members = [];
    this.open = false;
    try {
      this.writer.exec("commit");
      this.commits++;
    } catch (err) {
      if (this.writer.inTransaction) this.writer.exec("rollback");
      for (const m of members) m.reject(err);
      return;
    }
    for (const m of members) m.resolve();
  }

  /** Commits any open transaction (closing the database). */
  flush(): void {
    if (!this.busy) this.commit();
  }

  private scheduleCommit(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    setImmediate(() => {
      this.commitScheduled = false;
      // A transaction still running (waiting on I/O) commits when it releases the writer.
      if (this.busy || !this.open) return;
      const joined = this.joined;
      this.joined = false;
      if (joined && Date.now() - this.openedAt < GROUP_WAIT_MS) this.scheduleCommit();
      else this.commit();
    });
  }

  private failAll(err: Error): void {
    const members = this.members;
    this.members = [];
    this.open = false;
    for (const m of members) m.reject(err);
  }
}
