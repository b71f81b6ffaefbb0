/** The key signing temporary file URLs (migration 0013): made by whichever node needs it first. */
import type { Queryable } from "../tx.js";

/** The stored key; `candidate` becomes it when there is none yet (a concurrent first use keeps one). */
export async function uploadUrlKey(db: Queryable, candidate: string): Promise<string> {
  const existing = await db.selectFrom("upload_url_keys").select("key").where("id", "=", 1).executeTakeFirst();
  if (existing) return existing.key;
  await db.insertInto("upload_url_keys").values({ id: 1, key: candidate }).onConflict((oc) => oc.column("id").doNothing()).execute();
  return (await db.selectFrom("upload_url_keys").select("key").where("id", "=", 1).executeTakeFirstOrThrow()).key;
}
