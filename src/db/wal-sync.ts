/**
 * Durable commits without waiting on the event loop, for SQLite in WAL mode.
 *
 * The writer runs with synchronous=NORMAL: a COMMIT writes its frames to the WAL file but
 * does not wait for the disk. The commit group then fsyncs the WAL file in libuv's thread
 * pool and resolves the group's transactions only once that returns, so an acknowledged
 * write is exactly as durable as with synchronous=FULL (which fsyncs the WAL at every
 * COMMIT), while the disk's wait (1–13 ms on this project's machine) no longer stops every
 * request: the next group runs its transactions meanwhile.
 *
 * A COMMIT is visible to other connections at once, before the fsync. So that no request
 * reads data that might still be lost (as FULL guarantees), the read connection is held
 * on the snapshot from before the COMMIT (a read transaction begun right before it) until
 * the fsync has returned.
 */
import fs from "node:fs";
import type SQLite from "better-sqlite3";

export class WalSync {
  private fd = -1;
  private inode = -1;
  private readonly startRead: SQLite.Statement | null;

  constructor(
    private readonly walPath: string,
    private readonly reader: SQLite.Database | null,
  ) {
    // Any read of the database starts the read transaction's snapshot.
    this.startRead = reader?.prepare("select 1 from sqlite_schema limit 1") ?? null;
  }

  /** Holds the read connection on the data committed so far (right before a COMMIT). */
  holdReader(): void {
    if (!this.reader || this.reader.inTransaction) return;
    this.reader.exec("begin");
    this.startRead!.get();
  }

  /** Lets the read connection see the latest commits again. */
  releaseReader(): void {
    if (this.reader?.inTransaction) this.reader.exec("commit");
  }

  /** Flushes the WAL file to disk in the thread pool. */
  sync(done: (err: Error | null) => void): void {
    let fd: number;
    try {
      fd = this.walFile();
    } catch (err) {
      queueMicrotask(() => done(err as Error));
      return;
    }
    fs.fsync(fd, done);
  }

  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }

  /**
   * A descriptor of the WAL file (fsync on any descriptor of a file flushes all of it).
   * SQLite keeps the file while a connection is open; should it ever be replaced, the new
   * one is opened.
   */
  private walFile(): number {
    const { ino } = fs.statSync(this.walPath);
    if (ino !== this.inode || this.fd < 0) {
      this.close();
      this.fd = fs.openSync(this.walPath, "r");
      this.inode = fs.fstatSync(this.fd).ino;
    }
    return this.fd;
  }
}
