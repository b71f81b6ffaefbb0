/**
 * withTransaction(db, fn): runs fn in a transaction and then, only if it committed,
 * the callbacks registered with tx.onCommit (event publishing). Kysely has no such hook.
 */
import type { Kysely, Transaction } from "kysely";
import type { DB } from "./schema.js";

export type Tx = Transaction<DB> & { onCommit(fn: () => void): void };
export type Db = Kysely<DB>;
/** Anything a query function can run on: the database or an open transaction. */
export type Queryable = Kysely<DB> | Transaction<DB>;

export async function withTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const callbacks: Array<() => void> = [];
  const result = await db.transaction().execute(async (trx) => {
    const tx = trx as Tx;
    tx.onCommit = (cb) => callbacks.push(cb);
    return fn(tx);
  });
  for (const cb of callbacks) cb();
  return result;
}
