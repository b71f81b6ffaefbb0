/** The realm_emoji table: an organization's custom emoji. */
import { sql, type Insertable, type Selectable } from "kysely";
import { compiledOnce } from "../compiled.js";
import type { RealmEmojiTable } from "../schema.js";
import type { Queryable } from "../tx.js";

export type RealmEmojiRow = Selectable<RealmEmojiTable>;

const activeByName = compiledOnce((db, realmId: number, name: string) =>
  db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("name", "=", name).where("deactivated", "=", sql.lit(0)),
);

/** The realm's active custom emoji with this name, if any (compiled once: every reaction asks). */
export async function findActiveRealmEmojiByName(db: Queryable, realmId: number, name: string): Promise<RealmEmojiRow | undefined> {
  return (await activeByName(db, realmId, name))[0];
}

/** A realm's custom emoji (active or not) by id. */
export async function findRealmEmojiById(db: Queryable, realmId: number, id: number): Promise<RealmEmojiRow | undefined> {
  return db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

export async function insertRealmEmoji(db: Queryable, row: Insertable<RealmEmojiTable>): Promise<RealmEmojiRow> {
  return db.insertInto("realm_emoji").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateRealmEmoji(db: Queryable, realmId: number, id: number, values: { file_name?: string; deactivated?: number; is_animated?: number }): Promise<void> {
  await db.updateTable("realm_emoji").set(values).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** A unique-index violation (both engines): another active emoji already holds the name. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || (typeof e?.message === "string" && e.message.includes("UNIQUE constraint failed"));
}

/** The realm's custom emoji (active or not) stored under one of these file names, if any. */
export async function findRealmEmojiByFileName(db: Queryable, realmId: number, fileNames: readonly string[], animatedOnly: boolean): Promise<RealmEmojiRow | undefined> {
  if (fileNames.length === 0) return undefined;
  let q = db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("file_name", "in", [...fileNames]);
  if (animatedOnly) q = q.where("is_animated", "=", 1);
  return q.executeTakeFirst();
}
