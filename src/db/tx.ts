/**
 * withTransaction(db, fn): runs fn in a transaction and then, only if it committed,
 * the callbacks registered with tx.onCommit (event publishing). Kysely has no such hook.
 */
import type { Kysely, Transaction } from "kysely";
import type { DB } from "./schema.js";
import { TransactionReplay } from "./group-commit.js";

export type Tx = Transaction<DB> & { onCommit(fn: () => void): void };
export type Db = Kysely<DB>;
/** Anything a query function can run on: the database or an open transaction. */
export type Queryable = Kysely<DB> | Transaction<DB>;

/** Told when a transaction on a database begins and when it has ended (committed or not). */
export interface TransactionObserver {
  begun(): void;
  ended(): void;
}

const observers = new WeakMap<Db, TransactionObserver>();

/**
 * Observes the transactions run through withTransaction on `db`. The caches use it: a
 * write inside a transaction becomes visible to other connections only at COMMIT, so a
 * value read meanwhile must be flushed again once the transaction has ended.
 */
export function observeTransactions(db: Db, observer: TransactionObserver): void {
  observers.set(db, observer);
}

/** A connection that can be told its transaction may run again (SQLite's group commit). */
export interface ReplayableConnection {
  markReplayable(): void;
}

export interface TransactionOptions {
  /**
   * `fn` may run again from the start when SQLite's group commit rolls back its group for
   * another transaction's failure (group-commit.ts): its only effects are its statements and
   * its onCommit callbacks (those of an undone run are dropped). Such a transaction skips its
   * savepoint in the group.
   */
  replayable?: boolean;
}

export async function withTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await runTransaction(db, fn, opts);
    } catch (err) {
      // Each replay needs yet another member of its new group to fail: a few runs suffice.
      if (!(err instanceof TransactionReplay) || run >= MAX_RUNS) throw err;
    }
  }
}

const MAX_RUNS = 5;

async function runTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, opts: TransactionOptions): Promise<T> {
  const callbacks: Array<() => void> = [];
  const observer = observers.get(db);
  observer?.begun();
  let result: T;
  try {
    result = await db.transaction().execute(async (trx) => {
      const tx = trx as Tx;
      tx.onCommit = (cb) => callbacks.push(cb);
      if (opts.replayable) await trx.getExecutor().provideConnection(async (conn) => (conn as Partial<ReplayableConnection>).markReplayable?.());
      return fn(tx);
    });
  } finally {
    observer?.ended();
  }
  for (const cb of callbacks) cb();
  return result;
}
