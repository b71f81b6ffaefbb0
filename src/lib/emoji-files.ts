/**
 * How custom emoji images are named in the file store (src/storage): {file_name}, the still
 * of an animated one still/{base}.png (in the data folder under
 * {dataDir}/uploads/emoji/{realm_id}/). File names are random (not enumerable, never
 * reused), so the only name a request can reach is one a realm_emoji row holds.
 */
import { randomBytes } from "node:crypto";

/** What a stored file name looks like: 16 hex digits and an image extension. */
const FILE_NAME = /^[0-9a-f]{16}\.(png|jpg|gif|webp)$/;
export const CONTENT_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

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

/** An emoji's file (or its still) in the file store's "emoji" area (src/storage); only for names isStoredEmojiFileName accepts. */
export function emojiStoredName(fileName: string, still: boolean): string {
  if (!isStoredEmojiFileName(fileName)) throw new Error(`not an emoji file name: ${fileName}`);
  return still ? `still/${stillFileName(fileName)}` : fileName;
}
