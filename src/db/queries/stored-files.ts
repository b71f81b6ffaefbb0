/** Bytes of stored files (migration 0013); every statement names the realm. */
import type { Queryable } from "../tx.js";

export async function insertStoredFile(db: Queryable, realmId: number, area: string, name: string, data: Buffer): Promise<void> {
  await db.insertInto("stored_files").values({ realm_id: realmId, area, name, size: data.length, data }).execute();
}

export function findStoredFile(db: Queryable, realmId: number, area: string, name: string): Promise<{ data: Buffer } | undefined> {
  return db.selectFrom("stored_files").select("data").where("realm_id", "=", realmId).where("area", "=", area).where("name", "=", name).executeTakeFirst();
}

export async function storedFileExists(db: Queryable, realmId: number, area: string, name: string): Promise<boolean> {
  const row = await db.selectFrom("stored_files").select("id").where("realm_id", "=", realmId).where("area", "=", area).where("name", "=", name).executeTakeFirst();
  return row !== undefined;
}

export async function deleteStoredFiles(db: Queryable, realmId: number, area: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await db.deleteFrom("stored_files").where("realm_id", "=", realmId).where("area", "=", area).where("name", "in", names).execute();
}
