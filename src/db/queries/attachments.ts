/** Uploaded files and the messages linking them. */
import type { Attachment } from "../schema.js";
import type { Queryable } from "../tx.js";

export async function insertAttachment(db: Queryable, row: Omit<Attachment, "id">): Promise<Attachment> {
  return db.insertInto("attachments").values(row).returningAll().executeTakeFirstOrThrow();
}

export function findAttachmentByPathId(db: Queryable, realmId: number, pathId: string): Promise<Attachment | undefined> {
  return db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("path_id", "=", pathId).executeTakeFirst();
}

export function findAttachmentById(db: Queryable, realmId: number, id: number): Promise<Attachment | undefined> {
  return db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

export function attachmentsByPathIds(db: Queryable, realmId: number, pathIds: readonly string[]): Promise<Attachment[]> {
  if (pathIds.length === 0) return Promise.resolve([]);
  return db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("path_id", "in", pathIds).execute();
}

export async function linkAttachments(db: Queryable, attachmentIds: readonly number[], messageId: number): Promise<void> {
  if (attachmentIds.length === 0) return;
  await db
    .insertInto("attachment_messages")
    .values(attachmentIds.map((attachment_id) => ({ attachment_id, message_id: messageId })))
    .onConflict((oc) => oc.columns(["attachment_id", "message_id"]).doNothing())
    .execute();
}

export async function linkedMessageIds(db: Queryable, attachmentId: number): Promise<number[]> {
  const rows = await db.selectFrom("attachment_messages").select("message_id").where("attachment_id", "=", attachmentId).orderBy("message_id").execute();
  return rows.map((r) => r.message_id);
}

/** A user's uploads, newest first, each with the messages linking it (id and send time). */
export async function attachmentsOfOwner(db: Queryable, realmId: number, ownerId: number): Promise<Array<Attachment & { messages: Array<{ id: number; date_sent: number }> }>> {
  const files = await db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("owner_id", "=", ownerId).orderBy("id", "desc").execute();
  if (files.length === 0) return [];
  const links = await db
    .selectFrom("attachment_messages")
    .innerJoin("messages", "messages.id", "attachment_messages.message_id")
    .select(["attachment_messages.attachment_id as attachment_id", "messages.id as id", "messages.date_sent as date_sent"])
    .where("attachment_messages.attachment_id", "in", files.map((f) => f.id))
    .orderBy("messages.id")
    .execute();
  return files.map((f) => ({ ...f, messages: links.filter((l) => l.attachment_id === f.id).map((l) => ({ id: l.id, date_sent: Number(l.date_sent) })) }));
}

export async function uploadSpaceUsed(db: Queryable, realmId: number): Promise<number> {
  const row = await db.selectFrom("attachments").select((eb) => eb.fn.sum<number>("size").as("total")).where("realm_id", "=", realmId).executeTakeFirst();
  return Number(row?.total ?? 0);
}

export async function deleteAttachmentRow(db: Queryable, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("attachment_messages").where("attachment_id", "=", id).execute();
  await db.deleteFrom("attachments").where("realm_id", "=", realmId).where("id", "=", id).execute();
}

export async function setMessageHasAttachment(db: Queryable, realmId: number, messageId: number, has: boolean): Promise<void> {
  await db.updateTable("messages").set({ has_attachment: has ? 1 : 0 }).where("realm_id", "=", realmId).where("id", "=", messageId).execute();
}
