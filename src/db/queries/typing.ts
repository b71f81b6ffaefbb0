/** Lookups for typing notices. */
import type { Queryable } from "../tx.js";

/** Active users holding a copy of the message (a direct message's participants), by id. */
export async function activeMessageHolderIds(db: Queryable, realmId: number, messageId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("user_messages")
    .innerJoin("users", "users.id", "user_messages.user_id")
    .select("user_messages.user_id")
    .where("user_messages.realm_id", "=", realmId)
    .where("user_messages.message_id", "=", messageId)
    .where("users.is_active", "=", 1)
    .orderBy("user_messages.user_id")
    .execute();
  return rows.map((r) => r.user_id);
}
