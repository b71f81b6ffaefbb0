/**
 * The key that signs temporary file URLs (src/lib/uploads.ts temporaryToken): kept in the
 * database, so a URL one node hands out works on every node of a cluster and across
 * restarts. Read once per database handle; the stored key is never changed afterwards.
 */
import { randomBytes } from "node:crypto";
import { uploadUrlKey } from "../db/queries/upload-url-keys.js";
import { withTransaction, type Db } from "../db/tx.js";

const keys = new WeakMap<Db, Promise<Buffer>>();

export function temporaryUrlKey(db: Db): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    key = withTransaction(db, (tx) => uploadUrlKey(tx, randomBytes(32).toString("base64"))).then((k) => Buffer.from(k, "base64"));
    keys.set(db, key);
    // A failed read is tried again on the next request.
    key.catch(() => keys.delete(db));
  }
  return key;
}
