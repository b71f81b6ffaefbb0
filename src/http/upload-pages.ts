/**
 * The file URLs outside /api/v1 that messages link: /user_uploads/{realm_id}/{path}
 * (HTTP Basic credentials, as upstream accepts API authentication there, or the browser's
 * session cookie, so the web client shows images inline) and the
 * credential-free temporary URLs that GET /api/v1/user_uploads/... hands out.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../context.js";
import type { Attachment } from "../db/schema.js";
import { findAttachmentByPathId } from "../db/queries/attachments.js";
import { ApiError } from "../errors.js";
import { canReadAttachment } from "../lib/attachment-access.js";
import { subdomainFromHost } from "../lib/realm-host.js";
import { uploadResponseHeaders } from "../lib/upload-serving.js";
import { temporaryUrlKey } from "../lib/temporary-url-key.js";
import { attachmentStoredName, readTemporaryToken } from "../lib/uploads.js";
import { fileStore } from "../storage/file-store.js";
import { authenticateRequest } from "./session-auth.js";

const notFound = () => new ApiError("File not found", { status: 404 });

async function sendFile(ctx: AppContext, reply: FastifyReply, attachment: Attachment) {
  const name = attachmentStoredName(attachment.realm_id, attachment.path_id);
  const stored = name === null ? null : await fileStore(ctx).get(attachment.realm_id, "attachments", name);
  if (!stored) throw notFound();
  return reply.code(200).headers(uploadResponseHeaders(attachment.content_type, attachment.file_name)).send(stored.data);
}

export function registerUploadPages(app: FastifyInstance, ctx: AppContext): void {
  app.get("/user_uploads/temporary/:token/:filename", async (request, reply) => {
    const { token } = request.params as { token: string };
    const pathId = readTemporaryToken(await temporaryUrlKey(ctx.db), token, Math.floor(Date.now() / 1000));
    if (pathId === null) throw notFound();
    const realmId = Number(pathId.split("/")[0]);
    const attachment = await findAttachmentByPathId(ctx.db, realmId, pathId);
    if (!attachment) throw notFound();
    return sendFile(ctx, reply, attachment);
  });

  app.get("/user_uploads/:realm_id/*", async (request, reply) => {
    const params = request.params as { realm_id: string; "*": string };
    const { user, realm } = await authenticateRequest(ctx, request, subdomainFromHost(request.headers.host, ctx.config.externalHost));
    if (!/^\d+$/.test(params.realm_id) || Number(params.realm_id) !== realm.id) throw notFound();
    const attachment = await findAttachmentByPathId(ctx.db, realm.id, `${params.realm_id}/${params["*"]}`);
    if (!attachment) throw notFound();
    if (!(await canReadAttachment(ctx.db, user, attachment))) throw new ApiError("You are not authorized to view this file.", { status: 403 });
    return sendFile(ctx, reply, attachment);
  });
}
