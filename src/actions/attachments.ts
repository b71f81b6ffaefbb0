/**
 * Uploaded files (upstream upload_message_attachment, do_claim_attachments,
 * do_delete_old_unclaimed_attachments' single-file form): storing a file (src/storage: the
 * data folder or the database), linking it to the messages that mention it, deleting it.
 * The owner's clients get `attachment` events.
 */
import type { AppContext } from "../context.js";
import type { Attachment, Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import {
  attachmentsOfOwner,
  deleteAttachmentRow,
  insertAttachment,
  linkAttachments,
  attachmentsByPathIds,
  setMessageHasAttachment,
  uploadSpaceUsed,
} from "../db/queries/attachments.js";
import { sendEventOnCommit } from "../events/send.js";
import { linkedPathIds, newPathId, sanitizeFileName, attachmentStoredName, type UploadedFile } from "../lib/uploads.js";
import { canReadAttachment } from "../lib/attachment-access.js";
import { apiAttachment } from "../lib/attachment-record.js";
import { fileStore } from "../storage/file-store.js";

/** Stores the file, then records it (a failed insert removes the file again); returns the stored row. */
export async function doUploadFile(ctx: AppContext, realm: Realm, user: User, file: UploadedFile): Promise<Attachment> {
  const pathId = newPathId(realm.id, file.filename);
  const name = attachmentStoredName(realm.id, pathId)!;
  const store = fileStore(ctx);
  await store.put(realm.id, "attachments", name, file.data);
  try {
    return await recordUpload(ctx, realm, user, file, pathId);
  } catch (err) {
    await store.delete(realm.id, "attachments", [name]);
    throw err;
  }
}

function recordUpload(ctx: AppContext, realm: Realm, user: User, file: UploadedFile, pathId: string): Promise<Attachment> {
  return withTransaction(ctx.db, async (tx) => {
    const row = await insertAttachment(tx, {
      realm_id: realm.id,
      owner_id: user.id,
      path_id: pathId,
      file_name: sanitizeFileName(file.filename),
      content_type: file.contentType,
      size: file.data.length,
      create_time: Math.floor(Date.now() / 1000),
    });
    await sendAttachmentEvent(tx, ctx, realm, user, "add", apiAttachment({ ...row, messages: [] }));
    return row;
  });
}

/**
 * Records which uploads a message links (on send and on edit): the sender's own, and
 * others' files the sender can already read; links to anything else grant nothing.
 * Returns whether the message links any upload.
 */
export async function claimAttachments(tx: Tx, realmId: number, sender: User, messageId: number, content: string): Promise<boolean> {
  const pathIds = linkedPathIds(content, realmId);
  if (pathIds.length === 0) return false;
  const claimable: number[] = [];
  for (const file of await attachmentsByPathIds(tx, realmId, pathIds)) {
    if (await canReadAttachment(tx, sender, file)) claimable.push(file.id);
  }
  await linkAttachments(tx, claimable, messageId);
  await setMessageHasAttachment(tx, realmId, messageId, true);
  return true;
}

/**
 * Deletes the record, then the stored bytes; messages keep their (now dead) links, as
 * upstream. A crash between the two leaves bytes no row names (unreachable, as no route
 * serves a file without its row).
 */
export async function doDeleteAttachment(ctx: AppContext, realm: Realm, user: User, attachment: Attachment): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    await deleteAttachmentRow(tx, realm.id, attachment.id);
    await sendAttachmentEvent(tx, ctx, realm, user, "remove", { id: attachment.id });
  });
  const name = attachmentStoredName(realm.id, attachment.path_id);
  if (name) await fileStore(ctx).delete(realm.id, "attachments", [name]);
}

export async function listAttachments(ctx: AppContext, realm: Realm, user: User) {
  return (await attachmentsOfOwner(ctx.db, realm.id, user.id)).map(apiAttachment);
}

async function sendAttachmentEvent(tx: Tx, ctx: AppContext, realm: Realm, user: User, op: string, attachment: Record<string, unknown>): Promise<void> {
  const event = { type: "attachment", op, attachment, upload_space_used: await uploadSpaceUsed(tx, realm.id) };
  sendEventOnCommit(tx, ctx, realm.id, event, [user.id]);
}
