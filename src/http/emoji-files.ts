/**
 * Custom emoji images, served where their records point (source_url, still_url):
 * GET /user_avatars/{realm_id}/emoji/images/{file} and …/images/still/{file}. No
 * credentials, as upstream serves them as static files; only files a realm_emoji row of
 * that organization names (deactivated ones too: old messages still show them), so no
 * request reaches any other file (src/storage: the data folder or the database).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { findRealmEmojiByFileName } from "../db/queries/realm-emoji.js";
import { CONTENT_TYPES, emojiStoredName, isStoredEmojiFileName } from "../lib/emoji-files.js";
import { fileStore } from "../storage/file-store.js";
import { IMMUTABLE } from "./cache-control.js";
import { sendNotFound } from "./error-handler.js";

/** The formats an animated emoji can have (its still is `<base>.png`). */
const ANIMATED_EXTENSIONS = ["gif", "webp"];

export function registerEmojiFiles(app: FastifyInstance, ctx: AppContext): void {
  app.get("/user_avatars/:realm_id/emoji/images/:file", (req, reply) => serve(ctx, req, reply, false));
  app.get("/user_avatars/:realm_id/emoji/images/still/:file", (req, reply) => serve(ctx, req, reply, true));
}

async function serve(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, still: boolean) {
  const { realm_id: realmParam, file } = req.params as { realm_id: string; file: string };
  const notFound = () => sendNotFound(reply);
  const realmId = /^\d{1,9}$/.test(realmParam) ? Number(realmParam) : NaN;
  if (!Number.isSafeInteger(realmId) || !isStoredEmojiFileName(file) || (still && !file.endsWith(".png"))) return notFound();
  const base = file.slice(0, file.lastIndexOf("."));
  const candidates = still ? ANIMATED_EXTENSIONS.map((ext) => `${base}.${ext}`) : [file];
  const emoji = await findRealmEmojiByFileName(ctx.db, realmId, candidates, still);
  if (!emoji) return notFound();
  const stored = await fileStore(ctx).get(realmId, "emoji", emojiStoredName(emoji.file_name, still));
  if (!stored) return notFound();
  const ext = still ? "png" : file.slice(file.lastIndexOf(".") + 1);
  return reply
    .code(200)
    .header("content-type", CONTENT_TYPES[ext])
    // Stored file names are random and never reused, so a file never changes.
    .header("cache-control", IMMUTABLE)
    .header("x-content-type-options", "nosniff")
    .send(stored.data);
}
