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
 *
 * Replayable transactions (withTransaction's `replayable`: a send, whose only effects are
 * its writes and its onCommit callbacks) skip their savepoint too when every member before
 * them in the physical transaction is replayable: the savepoint's journal was a fifth of a
 * send's CPU. If such a transaction fails, the whole physical transaction rolls back and the
 * members that had ended (all replayable) are rejected with TransactionReplay, which
 * withTransaction answers by running them again. A transaction that is not replayable is
 * never undone by another's failure: once one has joined, every later member takes a
 * savepoint. The savepoint is taken at a member's first statement, when it is known whether
 * the member is replayable.
 */
import type SQLite from "better-sqlite3";
import { turnEnd } from "../lib/turn-end.js";
import type { OwnCommit, WalCommits } from "./wal-commits.js";

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

/** The group's physical transaction rolled back for another member's failure: run the transaction again. */
export class TransactionReplay extends Error {
  constructor() {
    super("The transaction was rolled back with its group; it runs again");
  }
}

/**
 * How the running logical transaction can be undone alone: it is the first of the physical
 * transaction (a plain ROLLBACK), it has a savepoint, it has run no statement yet (nothing
 * to undo; the savepoint is taken at its first statement), or it runs unprotected (a
 * replayable one behind replayable ones: undoing it rolls back the whole group).
 */
type Undo = "first" | "savepoint" | "no statement yet" | "whole group";

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
  private undoBy: Undo = "first";
  /** Every member of the physical transaction so far is replayable. */
  private allReplayable = true;
  /**
   * COMMITs done so far. Every write of this process reaches the database through this
   * group, so while the count stands still nothing new has become visible to the reader
   * connection (other processes' commits are not counted: see direct-reads.ts).
   */
  commits = 0;
  private beforeCommit: () => void = () => undefined;
  /** Rows changed by the writer connection so far, when the physical transaction began. */
  private changesAtBegin = 0;
  private readonly totalChanges: SQLite.Statement | undefined;
  private bumpMarker: SQLite.Statement | undefined;

  constructor(
    readonly writer: SQLite.Database,
    /** The WAL's commit counter (a database on a file): each COMMIT is accounted for as this process's. */
    private readonly walCommits?: WalCommits,
  ) {
    // A SAVEPOINT journals the original of every page its transaction changes first. Past
    // 64 KiB that journal went to a temporary file: a send to 50 subscribers touches about
    // 50 index pages, and writing them out tripled the cost of its INSERT. In memory it
    // holds one logical transaction's pages at most (durability is the WAL's, unchanged).
    writer.pragma("temp_store = MEMORY");
    if (walCommits) this.totalChanges = writer.prepare("select total_changes()").pluck();
  }

  /** Runs `fn` right before every COMMIT (the read connection's snapshot ends: turn-snapshot.ts). */
  beforeEachCommit(fn: () => void): void {
    this.beforeCommit = fn;
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
      if (this.totalChanges) this.changesAtBegin = this.totalChanges.get() as number;
      this.open = true;
      this.openedAt = Date.now();
      this.allReplayable = true;
      this.undoBy = "first";
      return;
    }
    this.undoBy = "no statement yet";
  }

  /** Called before each statement of a logical transaction: takes its savepoint when it needs one. */
  statement(replayable: boolean): void {
    if (this.undoBy !== "no statement yet") return;
    if (replayable && this.allReplayable) {
      this.undoBy = "whole group";
      return;
    }
    this.writer.exec(`savepoint ${SAVEPOINT}`);
    this.undoBy = "savepoint";
  }

  /**
   * Ends a logical transaction successfully; the promise settles with the shared COMMIT.
   * The caller releases the writer right after (synchronously), so the COMMIT can follow.
   */
  end(replayable: boolean): Promise<void> {
    if (this.undoBy === "savepoint") this.writer.exec(`release ${SAVEPOINT}`);
    this.allReplayable &&= replayable;
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
    switch (this.undoBy) {
      case "no statement yet":
        return;
      case "first":
        // The first transaction of the physical one: nobody else's writes are in it yet.
        this.writer.exec("rollback");
        this.open = false;
        return;
      case "whole group": {
        // Every member that ended before it is replayable: they run again.
        this.writer.exec("rollback");
        this.open = false;
        const members = this.members;
        this.members = [];
        for (const m of members) m.reject(new TransactionReplay());
        return;
      }
      case "savepoint":
        this.writer.exec(`rollback to ${SAVEPOINT}`);
        this.writer.exec(`release ${SAVEPOINT}`);
    }
  }

  /** Commits now if a physical transaction is open (the caller holds the writer or nobody does). */
  commit(): void {
    if (!this.open) return;
    const members = this.members;
    this.members = [];
    this.open = false;
    try {
      this.beforeCommit();
      // Under the write lock: nobody else commits between this read and the COMMIT.
      const before = this.walCommits?.read();
      const changedPage = this.walCommits !== undefined && this.markCommit();
      this.writer.exec("commit");
      this.walCommits?.ownCommit({ before, after: this.walCommits.read(), changedPage });
      this.commits++;
    } catch (err) {
      if (this.writer.inTransaction) this.writer.exec("rollback");
      for (const m of members) m.reject(err);
      return;
    }
    for (const m of members) m.resolve();
  }

  /**
   * The message writer's thread takes the write lock (message-writer.ts; the caller holds
   * the writer): the open transaction commits first, and the read connection's snapshot ends.
   */
  lendToWriterThread(): void {
    this.commit();
    this.beforeCommit();
    this.walCommits?.setForeignWriterBusy(true);
  }

  /** The thread's batch is done, with these COMMITs; the caller releases the writer next. */
  writerThreadReturned(commits: readonly OwnCommit[]): void {
    for (const commit of commits) {
      this.walCommits?.ownCommit(commit);
      this.commits++;
    }
    this.walCommits?.setForeignWriterBusy(false);
    // What the senders read next includes their messages.
    this.beforeCommit();
  }

  /**
   * When the open transaction changed rows, bumps the commit marker (migration 0019) so that
   * its COMMIT certainly changes a page; true when it did. Before the migration (or when no
   * row changed) the COMMIT is not known to change a page (wal-commits.ts).
   */
  private markCommit(): boolean {
    if (this.totalChanges!.get() === this.changesAtBegin) return false;
    try {
      this.bumpMarker ??= this.writer.prepare(`update "commit_marker" set "commits" = "commits" + 1 where "id" = 1`);
      return this.bumpMarker.run().changes === 1;
    } catch {
      return false; // no marker table yet: the migrations are running
    }
  }

  /** Commits any open transaction (closing the database). */
  flush(): void {
    if (!this.busy) this.commit();
  }

  private scheduleCommit(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    // The turn's end is asked for after the COMMIT's immediate: the members' answers then
    // leave right after the COMMIT, in the same check phase (lib/turn-end.ts).
    setImmediate(() => {
      this.commitScheduled = false;
      // A transaction still running (waiting on I/O) commits when it releases the writer.
      if (this.busy || !this.open) return;
      const joined = this.joined;
      this.joined = false;
      if (joined && Date.now() - this.openedAt < GROUP_WAIT_MS) this.scheduleCommit();
      else this.commit();
    });
    void turnEnd();
  }

  private failAll(err: Error): void {
    const members = this.members;
    this.members = [];
    this.open = false;
    for (const m of members) m.reject(err);
  }
}
