/**
 * Files in the database (stored_files; bytea on PostgreSQL, blob on SQLite): every node on
 * the same database reads what any node stored, with nothing else to set up. Writes run
 * in a transaction of their own, so on SQLite they go through the group commit and are
 * durable before put() resolves.
 */
import { deleteStoredFiles, findStoredFile, insertStoredFile, storedFileExists } from "../db/queries/stored-files.js";
import { withTransaction, type Db } from "../db/tx.js";
import type { FileArea, FileStore, StoredFile } from "./file-store.js";

export class DatabaseFileStore implements FileStore {
  constructor(private readonly db: Db) {}

  async put(realmId: number, area: FileArea, name: string, data: Buffer): Promise<void> {
    await withTransaction(this.db, (tx) => insertStoredFile(tx, realmId, area, name, data));
  }

  async get(realmId: number, area: FileArea, name: string): Promise<StoredFile | null> {
    const row = await findStoredFile(this.db, realmId, area, name);
    return row ? { data: row.data, size: row.data.length } : null;
  }

  exists(realmId: number, area: FileArea, name: string): Promise<boolean> {
    return storedFileExists(this.db, realmId, area, name);
  }

  async delete(realmId: number, area: FileArea, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await withTransaction(this.db, (tx) => deleteStoredFiles(tx, realmId, area, names));
  }
}
