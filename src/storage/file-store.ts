/**
 * Where the bytes of uploaded files and custom emoji images live, behind one interface:
 * a file is named by its organization, its area and its name within both, and every
 * read names the organization, so no request reaches another organization's files.
 * Two implementations: the data folder (folder-store.ts) and the database
 * (database-store.ts); fileStore() picks the one the configuration names.
 */
import type { FileStorageKind } from "../config.js";
import type { Db } from "../db/tx.js";
import { DatabaseFileStore } from "./database-store.js";
import { FolderFileStore } from "./folder-store.js";

/**
 * attachments: names "{2 hex digits}/{random}/{sanitized file name}" (a path id without
 * its "{realm_id}/"); emoji: "{file name}" and "still/{file name}" (src/lib/emoji-files.ts).
 */
export type FileArea = "attachments" | "emoji";

export interface StoredFile {
  data: Buffer;
  /** Length in bytes. */
  size: number;
}

export interface FileStore {
  /** Stores new bytes under a name not used before (fails if it is); durable once it resolves. */
  put(realmId: number, area: FileArea, name: string, data: Buffer): Promise<void>;
  /** The bytes, or null when the organization has no such file. */
  get(realmId: number, area: FileArea, name: string): Promise<StoredFile | null>;
  exists(realmId: number, area: FileArea, name: string): Promise<boolean>;
  /** Removes the files; names already gone are no error. */
  delete(realmId: number, area: FileArea, names: readonly string[]): Promise<void>;
}

export function fileStore(ctx: { config: { fileStorage: FileStorageKind; dataDir: string }; db: Db }): FileStore {
  const folder = new FolderFileStore(ctx.config.dataDir);
  return ctx.config.fileStorage === "database" ? new DatabaseFileStore(ctx.db, folder) : folder;
}
