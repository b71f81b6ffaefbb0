/**
 * Files under {dataDir}/uploads/, where they have always been: an attachment at
 * uploads/{realm_id}/{name} (its path id), an emoji image at uploads/emoji/{realm_id}/{name}.
 * Only the node whose folder it is can read them (or nodes sharing that folder).
 */
import { mkdir, readFile, rm, rmdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FileArea, FileStore, StoredFile } from "./file-store.js";

export class FolderFileStore implements FileStore {
  constructor(private readonly dataDir: string) {}

  async put(realmId: number, area: FileArea, name: string, data: Buffer): Promise<void> {
    const file = this.pathOf(realmId, area, name);
    if (!file) throw new Error(`not a stored file name: ${name}`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, data, { flag: "wx" });
  }

  async get(realmId: number, area: FileArea, name: string): Promise<StoredFile | null> {
    const file = this.pathOf(realmId, area, name);
    if (!file) return null;
    try {
      const data = await readFile(file);
      return { data, size: data.length };
    } catch {
      return null;
    }
  }

  async exists(realmId: number, area: FileArea, name: string): Promise<boolean> {
    const file = this.pathOf(realmId, area, name);
    return file !== null && (await stat(file).then((s) => s.isFile(), () => false));
  }

  async delete(realmId: number, area: FileArea, names: readonly string[]): Promise<void> {
    for (const name of names) {
      const file = this.pathOf(realmId, area, name);
      if (!file) continue;
      await rm(file, { force: true });
      // An attachment's folder ({bucket}/{random}/) was made for it alone: remove it too.
      if (area === "attachments") await rmdir(path.dirname(file)).catch(() => undefined);
    }
  }

  /** The file's place on disk, or null for a name that would leave its organization's folder. */
  private pathOf(realmId: number, area: FileArea, name: string): string | null {
    const root = path.resolve(this.dataDir, "uploads", ...(area === "emoji" ? ["emoji"] : []), String(realmId));
    const full = path.resolve(root, name);
    return full.startsWith(root + path.sep) ? full : null;
  }
}
