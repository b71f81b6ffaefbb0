/**
 * Uploads (upstream views/upload.py and views/attachments.py): POST /user_uploads, the
 * temporary URL of a file, the caller's list of uploads and deleting one.
 */
import { doDeleteAttachment, doUploadFile, listAttachments } from "../../actions/attachments.js";
import { uploadedFiles } from "../uploaded-files.js";
import { findAttachmentById, findAttachmentByPathId, uploadSpaceUsed } from "../../db/queries/attachments.js";
import { ApiError } from "../../errors.js";
import { canReadAttachment } from "../../lib/attachment-access.js";
import { temporaryUrlKey } from "../../lib/temporary-url-key.js";
import { temporaryToken, UPLOAD_ROUTE_MAX_BYTES, UPLOAD_URL_PREFIX } from "../../lib/uploads.js";
import { pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** POST /api/v1/user_uploads */
async function uploadFile(req: AuthedRequest): Promise<ViewResult> {
  const files = uploadedFiles(req.raw.body);
  if (files.length === 0) throw new ApiError("You must specify a file to upload");
  if (files.length !== 1) throw new ApiError("You may only upload one file at a time");
  const maxMib = req.ctx.config.maxFileUploadMib;
  if (files[0].data.length > maxMib * 1024 * 1024) {
    throw new ApiError(`File is larger than this server's configured maximum upload size (${maxMib} MiB).`);
  }
  const row = await doUploadFile(req.ctx, req.realm, req.user, files[0]);
  const url = UPLOAD_URL_PREFIX + row.path_id;
  return { uri: url, url, filename: row.file_name };
}

/** GET /api/v1/user_uploads/{realm_id_str}/{filename}: a URL that works without credentials for a minute. */
async function temporaryFileUrl(req: AuthedRequest): Promise<ViewResult> {
  const pathId = `${req.pathParams.realm_id_str}/${req.pathParams.filename}`;
  const attachment = await findAttachmentByPathId(req.ctx.db, req.realm.id, pathId);
  if (!attachment) throw new ApiError("File not found", { status: 404 });
  if (!(await canReadAttachment(req.ctx.db, req.user, attachment))) throw new ApiError("You are not authorized to view this file.", { status: 403 });
  const token = temporaryToken(await temporaryUrlKey(req.ctx.db), attachment.path_id, Math.floor(Date.now() / 1000));
  return { url: `${UPLOAD_URL_PREFIX}temporary/${token}/${encodeURIComponent(attachment.file_name)}` };
}

/** GET /api/v1/attachments */
async function getAttachments(req: AuthedRequest): Promise<ViewResult> {
  return { attachments: await listAttachments(req.ctx, req.realm, req.user), upload_space_used: await uploadSpaceUsed(req.ctx.db, req.realm.id) };
}

/** DELETE /api/v1/attachments/{attachment_id}: only one's own uploads. */
async function deleteAttachment(req: AuthedRequest): Promise<ViewResult> {
  const id = pathInt(req, "attachment_id");
  const attachment = await findAttachmentById(req.ctx.db, req.realm.id, id);
  if (!attachment || attachment.owner_id !== req.user.id) throw new ApiError("Invalid attachment");
  await doDeleteAttachment(req.ctx, req.realm, req.user, attachment);
  return {};
}

export const routes = [
  route("POST", "/user_uploads", uploadFile, { maxBodyBytes: UPLOAD_ROUTE_MAX_BYTES }),
  route("GET", "/user_uploads/{realm_id_str:int}/{filename*}", temporaryFileUrl),
  route("GET", "/attachments", getAttachments),
  route("DELETE", "/attachments/{attachment_id:int}", deleteAttachment),
];
