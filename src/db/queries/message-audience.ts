/**
 * Candidates for events about messages (src/lib/message-audience.ts): the active users
 * holding a per-user row, and a channel's active subscribers, each with the role the
 * access rule needs. Two statements whatever the number of users.
 */
import type { Queryable } from "../tx.js";

export interface RowHolder {
  user_id: number;
  role: number;
  message_id: number;
  flags: number;
}

/** Active users' rows for these messages (of one realm). */
export async function activeRowHolders(db: Queryable, realmId: number, messageIds: readonly number[]): Promise<RowHolder[]> {
  if (messageIds.length === 0) return [];
  return db
    .selectFrom("user_messages")
    .innerJoin("users", "users.id", "user_messages.user_id")
    .select(["user_messages.user_id", "users.role", "user_messages.message_id", "user_messages.flags"])
    .where("user_messages.realm_id", "=", realmId)
    .where("user_messages.message_id", "in", [...messageIds])
    .where("users.is_active", "=", 1)
    .execute();
}

/** Active users with an active subscription to the channel of this recipient. */
export async function activeSubscribersWithRoles(db: Queryable, realmId: number, recipientId: number): Promise<Array<{ user_id: number; role: number }>> {
  return db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select(["subscriptions.user_id", "users.role"])
    .where("subscriptions.realm_id", "=", realmId)
    .where("subscriptions.recipient_id", "=", recipientId)
    .where("subscriptions.active", "=", 1)
    .where("users.is_active", "=", 1)
    .execute();
}
