/** Reading and writing one user's subscription to a channel, for its per-channel settings. */
import type { Subscription } from "../schema.js";
import type { Queryable } from "../tx.js";

/** The user's active subscription to the channel with this recipient, if any. */
export function activeSubscription(db: Queryable, realmId: number, userId: number, recipientId: number): Promise<Subscription | undefined> {
  return db
    .selectFrom("subscriptions")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("recipient_id", "=", recipientId)
    .where("active", "=", 1)
    .executeTakeFirst();
}

export async function setSubscriptionColumn(db: Queryable, realmId: number, subscriptionId: number, column: string, value: number | string): Promise<void> {
  await db
    .updateTable("subscriptions")
    .set({ [column]: value })
    .where("realm_id", "=", realmId)
    .where("id", "=", subscriptionId)
    .execute();
}
