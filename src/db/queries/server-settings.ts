/** Reads for GET /server_settings. */
import type { Queryable } from "../tx.js";

/** Whether the realm has at least one active web-public channel. */
export async function realmHasWebPublicChannel(db: Queryable, realmId: number): Promise<boolean> {
  const row = await db
    .selectFrom("channels")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("is_web_public", "=", 1)
    .where("deactivated", "=", 0)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
