/**
 * Where each user's unread messages begin: a message id below which every per-user row of
 * theirs is read. /register's unread read walks the caller's rows from there instead of
 * from their first message, so its cost follows the unread and the newest messages, not
 * the whole history (a member with 2,000 messages received and a few unread: 250 µs of
 * walking every row, a few µs from the floor; upstream pays with a partial index of unread
 * rows instead, which doubled the cost of a send here: see migration 0016).
 *
 * A floor stays true by itself as messages arrive: a new message's id is above every id
 * there is. It can only be broken by a write that leaves an older row unread, and of this
 * process's writes to user_messages only marking messages unread does (rows the user has,
 * and historical rows made for messages they had none for: actions/message-flags.ts); an
 * edit's new flags keep the read bit, and the rows a move or a reaction adds are read. That
 * write calls `lowered` inside its transaction, which drops the user's floor and forbids
 * learning one from a read that may not have seen the write. Other processes' commits
 * flush everything (the caches' check of the WAL's commit counter). A new write path that can leave an
 * older row unread must call `lowered` too.
 *
 * Only with SQLite's direct reader: a floor is learned from a read made at a known commit
 * count of this process's writer (direct-reads.ts), and the single writer commits message
 * ids in ascending order. On PostgreSQL (concurrent transactions commit ids out of order;
 * other nodes write too) every read starts at 0.
 */
import type { DirectReader } from "../db/direct-reads.js";
import { GenerationalMap } from "./generational-map.js";

/** What a read needs to learn a floor afterwards. */
export interface FloorRead {
  /** Walk the user's rows from this message id. */
  readonly floor: number;
  readonly userId: number;
  readonly commits: number;
  readonly generation: number;
}

export class UnreadFloorCache {
  /** Floors by user id; a flush (of everything or of some users) drops fills read before it. */
  private readonly floors = new GenerationalMap<number, number>(100_000);
  /** Users whose rows a transaction not yet committed changed, with the commit count then. */
  private readonly loweredAt = new Map<number, number>();
  /** Set on SQLite (server.ts); without it every read starts at 0 and nothing is learned. */
  private reader: DirectReader | undefined;

  enable(reader: DirectReader): void {
    this.reader = reader;
  }

  /** Starts a read of `userId`'s unread rows. */
  begin(userId: number): FloorRead {
    const reader = this.reader;
    if (reader === undefined) return { floor: 0, userId, commits: -1, generation: -1 };
    return { floor: this.floors.get(userId) ?? 0, userId, commits: reader.commitCount(), generation: this.floors.generation };
  }

  /**
   * After the read: every row of the user below `floor` is read. Kept only when nothing
   * may have changed since the read: no commit of this process, no flush, no write to the
   * user's rows pending in a transaction the read could not see.
   */
  learn(read: FloorRead, floor: number): void {
    const reader = this.reader;
    if (reader === undefined || read.commits < 0 || reader.commitCount() !== read.commits) return;
    const lowered = this.loweredAt.get(read.userId);
    if (lowered !== undefined) {
      if (lowered >= read.commits) return;
      this.loweredAt.delete(read.userId); // committed before the read: the read saw it
    }
    if (floor > read.floor) this.floors.fill(read.userId, floor, read.generation);
  }

  /**
   * A write in a transaction (at this commit count of the writer) may leave rows of these
   * users unread below their floors: their floors go, and no read before its COMMIT sets one.
   */
  lowered(userIds: readonly number[]): void {
    if (this.reader === undefined) return;
    const at = this.reader.commitCount();
    this.floors.flushKeys(userIds);
    for (const userId of userIds) this.loweredAt.set(userId, at);
  }

  /** The user's floor now (undefined: none known; reads start at 0). */
  floorOf(userId: number): number | undefined {
    return this.floors.get(userId);
  }

  /** Floors are per user and cheap to learn again: a realm's flush drops them all. */
  flushRealm(_realmId: number): void {
    this.flushAll();
  }

  flushAll(): void {
    this.floors.flush();
    this.loweredAt.clear();
  }
}
