/** Drafts (spec 2.2, 4.7): one user's saved compose boxes. Every read is scoped by realm and owner. */
import type { Draft, NewDraft } from "../schema.js";
import { compiledOnce, literalLimit } from "../compiled.js";
import type { Queryable } from "../tx.js";

/** The user's drafts by last edit, oldest first (GET /drafts). */
export async function listDrafts(db: Queryable, realmId: number, userId: number): Promise<Draft[]> {
  return db.selectFrom("drafts").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("last_edit_time", "asc").orderBy("id", "asc").execute();
}

/** The user's newest `limit` drafts by last edit, newest first (/register), compiled once. */
export function newestDraftsQuery(limit: number): (db: Queryable, realmId: number, userId: number) => Promise<Draft[]> {
  return compiledOnce((db, realmId: number, userId: number) =>
    db.selectFrom("drafts").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("last_edit_time", "desc").orderBy("id", "desc").limit(literalLimit(limit)),
  );
}

/** One draft of its owner, or undefined (another user's draft is not found). */
export async function findOwnDraft(db: Queryable, realmId: number, userId: number, draftId: number): Promise<Draft | undefined> {
  return db
    .selectFrom("drafts")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("id", "=", draftId)
    .executeTakeFirst();
}

/** Inserts the drafts in one statement; rows come back in insertion order. */
export async function insertDrafts(db: Queryable, rows: NewDraft[]): Promise<Draft[]> {
  if (rows.length === 0) return [];
  const inserted = await db.insertInto("drafts").values(rows).returningAll().execute();
  return inserted.sort((a, b) => a.id - b.id);
}

export async function updateDraftRow(
  db: Queryable,
  realmId: number,
  draftId: number,
  values: Pick<NewDraft, "type" | "to_json" | "topic" | "content" | "last_edit_time">,
): Promise<Draft> {
  return db.updateTable("drafts").set(values).where("realm_id", "=", realmId).where("id", "=", draftId).returningAll().executeTakeFirstOrThrow();
}

export async function deleteDraftRow(db: Queryable, realmId: number, draftId: number): Promise<void> {
  await db.deleteFrom("drafts").where("realm_id", "=", realmId).where("id", "=", draftId).execute();
}

/** Every draft of the user (turning draft synchronization off). */
export async function deleteAllDraftsOf(db: Queryable, realmId: number, userId: number): Promise<void> {
  await db.deleteFrom("drafts").where("realm_id", "=", realmId).where("user_id", "=", userId).execute();
}
