/**
 * Candidates for events about messages (src/lib/message-audience.ts): the active users
 * holding a per-user row, and a channel's active subscribers, each with the role the
 * access rule needs. Two statements whatever the number of users, compiled once (every
 * reaction, edit and flag change asks).
 */
import { sql } from "kysely";
import { compiledOnce } from "../compiled.js";
import { inIntegerList, integerListParam } from "../dialect.js";
import type { Queryable } from "../tx.js";

export interface RowHolder {
  user_id: number;
  role: number;
  message_id: number;
  flags: number;
}

const rowHolders = compiledOnce((db, realmId: number, messageIds: string | number[]) =>
  db
    .selectFrom("user_messages")
    .innerJoin("users", "users.id", "user_messages.user_id")
    .select(["user_messages.user_id", "users.role", "user_messages.message_id", "user_messages.flags"])
    .where("user_messages.realm_id", "=", realmId)
    .where(inIntegerList(db, "user_messages.message_id", messageIds))
    .where("users.is_active", "=", sql.lit(1)),
);

/** Active users' rows for these messages (of one realm). */
export async function activeRowHolders(db: Queryable, realmId: number, messageIds: readonly number[]): Promise<RowHolder[]> {
  if (messageIds.length === 0) return [];
  return rowHolders(db, realmId, integerListParam(db, messageIds));
}

/** Active users with an active subscription to the channel of this recipient. */
export const activeSubscribersWithRoles = compiledOnce((db, realmId: number, recipientId: number) =>
  db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select(["subscriptions.user_id", "users.role"])
    .where("subscriptions.realm_id", "=", realmId)
    .where("subscriptions.recipient_id", "=", recipientId)
    .where("subscriptions.active", "=", sql.lit(1))
    .where("users.is_active", "=", sql.lit(1)),
);
