/** A user's navigation views (spec 2.11): one row per configured fragment. */
import type { NavigationView } from "../schema.js";
import { compiledOnce } from "../compiled.js";
import type { Queryable } from "../tx.js";

export const listNavigationViews: (db: Queryable, realmId: number, userId: number) => Promise<NavigationView[]> = compiledOnce((db, realmId: number, userId: number) =>
  db.selectFrom("navigation_views").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id"),
);

export async function findNavigationView(db: Queryable, realmId: number, userId: number, fragment: string): Promise<NavigationView | undefined> {
  return db
    .selectFrom("navigation_views")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("fragment", "=", fragment)
    .executeTakeFirst();
}

export async function navigationViewNameTaken(db: Queryable, realmId: number, userId: number, name: string): Promise<boolean> {
  const row = await db
    .selectFrom("navigation_views")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("name", "=", name)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertNavigationView(db: Queryable, realmId: number, userId: number, fragment: string, isPinned: boolean, name: string | null): Promise<NavigationView> {
  return db
    .insertInto("navigation_views")
    .values({ realm_id: realmId, user_id: userId, fragment, is_pinned: isPinned ? 1 : 0, name })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateNavigationView(db: Queryable, id: number, set: { is_pinned?: number; name?: string }): Promise<void> {
  if (Object.keys(set).length === 0) return;
  await db.updateTable("navigation_views").set(set).where("id", "=", id).execute();
}

export async function deleteNavigationView(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom("navigation_views").where("id", "=", id).execute();
}
