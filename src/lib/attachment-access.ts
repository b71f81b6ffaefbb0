/**
 * Who may read an uploaded file (upstream validate_attachment_request): its uploader, and
 * anyone who can read a message that links it. Always scoped to the reader's realm.
 */
import type { Attachment, User } from "../db/schema.js";
import { linkedMessageIds } from "../db/queries/attachments.js";
import type { Queryable } from "../db/tx.js";
import { bulkAccessMessages } from "./message-access.js";

export async function canReadAttachment(db: Queryable, user: User, attachment: Attachment): Promise<boolean> {
  if (attachment.realm_id !== user.realm_id) return false;
  if (attachment.owner_id === user.id) return true;
  const messageIds = await linkedMessageIds(db, attachment.id);
  if (messageIds.length === 0) return false;
  return (await bulkAccessMessages(db, user, messageIds)).length > 0;
}
