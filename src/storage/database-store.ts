/**
 * Files in the database (stored_files; bytea on PostgreSQL, blob on SQLite): every node on
 * the same database reads what any node stored, with nothing else to set up. Writes run
 * in a transaction of their own, so on SQLite they go through the group commit and are
 * durable before put() resolves.
 *
 * Files stored in the data folder before (a PostgreSQL server of an earlier release, or
 * PARLEY_FILE_STORAGE=folder) are still read from there when the database has no such
 * file, and deleted there too; new files go to the database only.
 */
import { deleteStoredFiles, findStoredFile, insertStoredFile, storedFileExists } from "../db/queries/stored-files.js";
import { withTransaction, type Db } from "../db/tx.js";
import type { FileArea, FileStore, StoredFile } from "./file-store.js";

export class DatabaseFileStore implements FileStore {
  constructor(
    private readonly db: Db,
    private readonly earlier?: FileStore,
  ) {}

  async put(realmId: number, area: FileArea, name: string, data: Buffer): Promise<void> {
    await withTransaction(this.db, (tx) => insertStoredFile(tx, realmId, area, name, data));
  }

  async get(realmId: number, area: FileArea, name: string): Promise<StoredFile | null> {
    const row = await findStoredFile(this.db, realmId, area, name);
    if (row) return { data: row.data, size: row.data.length };
    return this.earlier ? this.earlier.get(realmId, area, name) : null;
  }

  async exists(realmId: number, area: FileArea, name: string): Promise<boolean> {
    return (await storedFileExists(this.db, realmId, area, name)) || (this.earlier !== undefined && (await this.earlier.exists(realmId, area, name)));
  }

  async delete(realmId: number, area: FileArea, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await withTransaction(this.db, (tx) => deleteStoredFiles(tx, realmId, area, names));
    await this.earlier?.delete(realmId, area, names);
  }
}
