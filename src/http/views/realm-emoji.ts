/** Custom emoji: GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}. */
import { doDeactivateRealmEmoji, doUploadRealmEmoji, MAX_EMOJI_FILE_SIZE_MIB } from "../../actions/realm-emoji.js";
import { toApiRealmEmoji } from "../../api-records/realm-emoji.js";
import { listRealmEmoji } from "../../db/queries/initial-state.js";
import { normalizeEmojiName } from "../../lib/emoji-validation.js";
import { parseParams } from "../params/parse.js";
import { uploadedFiles } from "../uploaded-files.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/**
 * The body may carry a file somewhat over the emoji limit, so that it gets upstream's
 * "larger than the allowed limit" message rather than the generic 413.
 */
const UPLOAD_BODY_BYTES = (MAX_EMOJI_FILE_SIZE_MIB + 3) * 1024 * 1024;

/** GET /api/v1/realm/emoji */
async function listEmoji(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  return { emoji: toApiRealmEmoji(req.realm.id, await listRealmEmoji(req.ctx.db, req.realm.id)) };
}

/** POST /api/v1/realm/emoji/{emoji_name} (multipart: exactly one image file) */
async function uploadEmoji(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  await doUploadRealmEmoji(req.ctx, req.realm, req.user, normalizeEmojiName(req.pathParams.emoji_name ?? ""), uploadedFiles(req.raw.body).map((f) => f.data));
  return {};
}

/** DELETE /api/v1/realm/emoji/{emoji_name} */
async function deactivateEmoji(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  await doDeactivateRealmEmoji(req.ctx, req.realm, req.user, req.pathParams.emoji_name ?? "");
  return {};
}

export const routes = [
  route("GET", "/realm/emoji", listEmoji),
  route("POST", "/realm/emoji/{emoji_name}", uploadEmoji, { maxBodyBytes: UPLOAD_BODY_BYTES }),
  route("DELETE", "/realm/emoji/{emoji_name}", deactivateEmoji),
];
