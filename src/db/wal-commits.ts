/**
 * Other processes' commits to a SQLite database in WAL mode, told apart from this process's.
 *
 * The caches must notice when another process (the CLI, an operator's sqlite3 shell) commits.
 * `PRAGMA data_version` on a connection says that some other connection committed, but this
 * process has two writing connections (the group's writer and the message writer's thread,
 * message-writer.ts), so it cannot tell whose commit it was. The WAL index header in the
 * `-shm` file holds a counter of commits (iChange: SQLite's WalIndexHdr, native byte order,
 * written twice, the copies equal unless a commit is updating them) that every connection's
 * commit moves by one. This process reads it around each of its own COMMITs, while it holds
 * the write lock and right after, and anything else moving it is another process's commit.
 *
 * A COMMIT moves the counter by one exactly when its transaction changed a page. Changed rows
 * are not enough (an UPDATE writing a row's own values leaves its page alone), so the group
 * also bumps a one-row marker (migration 0019) in a transaction that changed rows; the
 * message writer's batches insert new rows. A COMMIT not known to have changed a page is
 * expected to leave the counter alone, and a move then counts as another process's: at worst
 * the caches flush once more than needed, never once less.
 */
import fs from "node:fs";

const HEADER_BYTES = 48;
const COUNTER_OFFSET = 8;
const IS_INIT_OFFSET = 12;

/** Reads the WAL index header's commit counter; undefined while a commit is writing the header. */
export function readCommitCounter(fd: number, buffer: Buffer = Buffer.alloc(2 * HEADER_BYTES)): number | undefined {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (fs.readSync(fd, buffer, 0, 2 * HEADER_BYTES, 0) < 2 * HEADER_BYTES) return undefined;
    if (buffer[IS_INIT_OFFSET] === 1 && buffer.compare(buffer, 0, HEADER_BYTES, HEADER_BYTES, 2 * HEADER_BYTES) === 0) return buffer.readUInt32LE(COUNTER_OFFSET);
  }
  return undefined;
}

/** One COMMIT of this process: the counter read under the write lock right before it and right after. */
export interface OwnCommit {
  before: number | undefined;
  after: number | undefined;
  /**
   * The COMMIT certainly added a commit to the WAL (a page it changed: a new row, the commit
   * marker). Otherwise it is expected to add none, and a move counts as another process's.
   */
  changedPage: boolean;
}

export class WalCommits {
  private readonly fd: number;
  private readonly buffer = Buffer.alloc(2 * HEADER_BYTES);
  /** The counter as this process's own commits left it. */
  private expected: number | undefined;
  private external = false;
  /** The message writer's thread may be committing: a move of the counter is not yet known to be foreign. */
  private foreignWriterBusy = false;

  /** `shmPath`: the database's `-shm` file (it exists once a connection has opened the database in WAL mode). */
  constructor(shmPath: string) {
    this.fd = fs.openSync(shmPath, "r");
    this.expected = this.read();
  }

  read(): number | undefined {
    return readCommitCounter(this.fd, this.buffer);
  }

  /** Accounts for a COMMIT of this process. */
  ownCommit(commit: OwnCommit): void {
    if (commit.before === undefined || commit.after === undefined || commit.before !== this.expected) this.external = true;
    else if (commit.after !== ((commit.before + (commit.changedPage ? 1 : 0)) >>> 0)) this.external = true;
    this.expected = commit.after;
  }

  /** The message writer's thread is about to commit (true) or has reported its commits (false). */
  setForeignWriterBusy(busy: boolean): void {
    this.foreignWriterBusy = busy;
  }

  /** Whether another process committed since the last call (checked once per turn of the event loop). */
  changed(): boolean {
    const now = this.read();
    if (now !== this.expected) {
      // The writer thread's commit moves it too: decide once its report is in (a few milliseconds).
      if (this.foreignWriterBusy && now !== undefined) return this.takeExternal();
      this.external = true;
      this.expected = now;
    }
    return this.takeExternal();
  }

  private takeExternal(): boolean {
    const external = this.external;
    this.external = false;
    return external;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
