/** Linkifier rows of one realm, always in their display order. */
import type { Linkifier } from "../schema.js";
import type { Queryable } from "../tx.js";

export async function listLinkifiers(db: Queryable, realmId: number): Promise<Linkifier[]> {
  return db.selectFrom("linkifiers").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute();
}

export async function findLinkifier(db: Queryable, realmId: number, id: number): Promise<Linkifier | undefined> {
  return db.selectFrom("linkifiers").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

export async function findLinkifierByPattern(db: Queryable, realmId: number, pattern: string): Promise<Linkifier | undefined> {
  return db.selectFrom("linkifiers").selectAll().where("realm_id", "=", realmId).where("pattern", "=", pattern).executeTakeFirst();
}

export async function insertLinkifier(db: Queryable, realmId: number, pattern: string, urlTemplate: string, order: number): Promise<number> {
  const { id } = await db
    .insertInto("linkifiers")
    .values({ realm_id: realmId, pattern, url_template: urlTemplate, order })
    .returning("id")
    .executeTakeFirstOrThrow();
  return id;
}

export async function updateLinkifier(db: Queryable, realmId: number, id: number, pattern: string, urlTemplate: string): Promise<void> {
  await db.updateTable("linkifiers").set({ pattern, url_template: urlTemplate }).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

export async function setLinkifierOrder(db: Queryable, realmId: number, id: number, order: number): Promise<void> {
  await db.updateTable("linkifiers").set({ order }).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

export async function deleteLinkifier(db: Queryable, realmId: number, id: number): Promise<void> {
  await db.deleteFrom("linkifiers").where("realm_id", "=", realmId).where("id", "=", id).execute();
}
