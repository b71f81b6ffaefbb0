/**
 * The server's emoji data file (/register's `server_emoji_data_url`): every Unicode emoji
 * this server accepts, `{"code_to_names": {code: [canonical name, aliases…]}}`, at
 * /static/generated/emoji/emoji_api.<hash>.json. The hash is of the content, so the file at
 * a URL never changes and may be cached for a year; a new emoji data set gets a new URL.
 */
import crypto from "node:crypto";
import { emojiNamesByCode } from "./emoji.js";

let file: { path: string; body: string } | undefined;

export function emojiDataFile(): { path: string; body: string } {
  if (!file) {
    const body = JSON.stringify({ code_to_names: Object.fromEntries(emojiNamesByCode()) });
    const hash = crypto.createHash("sha256").update(body).digest("hex").slice(0, 16);
    file = { path: `/static/generated/emoji/emoji_api.${hash}.json`, body };
  }
  return file;
}
