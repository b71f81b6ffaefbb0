/** The user_status table: one row per user with a status text and/or emoji. */
import type { Selectable } from "kysely";
import type { UserStatusTable } from "../schema.js";
import type { Queryable } from "../tx.js";

export type UserStatusRow = Selectable<UserStatusTable>;

export async function findUserStatus(db: Queryable, realmId: number, userId: number): Promise<UserStatusRow | undefined> {
  return db.selectFrom("user_status").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).executeTakeFirst();
}

export interface UserStatusChange {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** Writes only the given fields (a new row starts from the defaults). */
export async function upsertUserStatus(db: Queryable, realmId: number, userId: number, change: UserStatusChange, timestamp: number): Promise<void> {
  await db
    .insertInto("user_status")
    .values({ realm_id: realmId, user_id: userId, ...change, timestamp })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ ...change, timestamp }))
    .execute();
}
