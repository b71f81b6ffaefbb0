/** Queries behind limited user access (src/lib/users.ts accessibleUserIds). */
import type { Queryable } from "../tx.js";

const RECIPIENT_CHANNEL = 2;

/** The realm's can_access_all_users_group_id (null: not set, everyone may access everyone). */
export async function canAccessAllUsersGroupId(db: Queryable, realmId: number): Promise<number | null> {
  const row = await db.selectFrom("realms").select("can_access_all_users_group_id").where("id", "=", realmId).executeTakeFirst();
  return row?.can_access_all_users_group_id ?? null;
}

/** Users (active or not) with an active subscription to a channel the user is actively subscribed to. */
export async function userIdsSharingChannelSubscriptions(db: Queryable, realmId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("subscriptions as mine")
    .innerJoin("recipients", "recipients.id", "mine.recipient_id")
    .innerJoin("subscriptions as theirs", "theirs.recipient_id", "mine.recipient_id")
    .select("theirs.user_id")
    .distinct()
    .where("mine.realm_id", "=", realmId)
    .where("mine.user_id", "=", userId)
    .where("mine.active", "=", 1)
    .where("recipients.type", "=", RECIPIENT_CHANNEL)
    .where("theirs.active", "=", 1)
    .execute();
  return rows.map((r) => r.user_id);
}

/** Users who share a direct message (one-to-one or group) with the user. */
export async function userIdsInDirectMessagesWith(db: Queryable, realmId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("user_messages as mine")
    .innerJoin("messages", "messages.id", "mine.message_id")
    .innerJoin("user_messages as theirs", "theirs.message_id", "mine.message_id")
    .select("theirs.user_id")
    .distinct()
    .where("mine.realm_id", "=", realmId)
    .where("mine.user_id", "=", userId)
    .where("messages.channel_id", "is", null)
    .execute();
  return rows.map((r) => r.user_id);
}
