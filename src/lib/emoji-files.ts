/**
 * Where custom emoji images live: {dataDir}/uploads/emoji/{realm_id}/{file_name}, the still
 * of an animated one at …/still/{base}.png. File names are random (not enumerable, never
 * reused), so the only name a request can reach is one a realm_emoji row holds.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** What a stored file name looks like: 16 hex digits and an image extension. */
const FILE_NAME = /^[0-9a-f]{16}\.(png|jpg|gif|webp)$/;
export const CONTENT_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

export function emojiFolder(dataDir: string, realmId: number): string {
  return join(dataDir, "uploads", "emoji", String(realmId));
}

export function isStoredEmojiFileName(name: string): boolean {
  return FILE_NAME.test(name);
}

/** The still's file name for an emoji file name (`abc.gif` → `abc.png`). */
export function stillFileName(fileName: string): string {
  return fileName.replace(/\.[a-z]+$/, ".png");
}

export function newEmojiFileName(ext: string): string {
  return `${randomBytes(8).toString("hex")}.${ext}`;
}

/** Absolute path of an emoji's file (or its still); only for names isStoredEmojiFileName accepts. */
export function emojiFilePath(dataDir: string, realmId: number, fileName: string, still: boolean): string {
  if (!isStoredEmojiFileName(fileName)) throw new Error(`not an emoji file name: ${fileName}`);
  const folder = emojiFolder(dataDir, realmId);
  return still ? join(folder, "still", stillFileName(fileName)) : join(folder, fileName);
}

/** Writes the image (and its still); returns a function that removes both again. */
export async function writeEmojiFiles(dataDir: string, realmId: number, fileName: string, data: Buffer, still: Buffer | null): Promise<() => Promise<void>> {
  const paths = [emojiFilePath(dataDir, realmId, fileName, false)];
  const remove = () => Promise.all(paths.map((p) => rm(p, { force: true }))).then(() => undefined);
  try {
    await mkdir(emojiFolder(dataDir, realmId), { recursive: true });
    await writeFile(paths[0], data, { flag: "wx" });
    if (still) {
      paths.push(emojiFilePath(dataDir, realmId, fileName, true));
      await mkdir(join(emojiFolder(dataDir, realmId), "still"), { recursive: true });
      await writeFile(paths[1], still, { flag: "wx" });
    }
  } catch (err) {
    await remove();
    throw err;
  }
  return remove;
}
