/**
 * The send path's reads through the caches of caches/send-lookups.ts: a send reads the
 * same channel, recipients, sender's groups and linkifiers as the send before it. Each
 * loads from `db` (the send's own transaction) on a miss.
 */
import type { AppContext } from "../context.js";
import type { Channel, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { channelForSend, channelRecipients } from "../db/queries/message-send.js";
import { linkifiersOfRealm } from "../db/queries/messages.js";
import { groupIdsContainingUser } from "../db/queries/user-groups.js";
import { ChannelLookupCache, type ChannelRecipients, type Linkifier } from "../caches/send-lookups.js";
import type { ChannelIndicator } from "./addressee.js";

/** The channel an indicator names in the realm (a frozen row), or undefined. */
export function cachedChannel(ctx: AppContext, db: Queryable, realmId: number, indicator: ChannelIndicator): Promise<Readonly<Channel> | undefined> | Readonly<Channel> | undefined {
  return ctx.caches.channelLookups.get(realmId, ChannelLookupCache.key(realmId, indicator), () => channelForSend(db, realmId, indicator));
}

/** The channel's active subscribers who are active users, and their alert words. */
export async function cachedChannelRecipients(ctx: AppContext, db: Queryable, realmId: number, channel: Pick<Channel, "recipient_id">): Promise<ChannelRecipients> {
  if (channel.recipient_id === null) return { userIds: [], alertWords: [] };
  return ctx.caches.channelRecipients.get(realmId, channel.recipient_id, async () => {
    const { userIds, alertWords } = await channelRecipients(db, realmId, channel);
    return { userIds: Object.freeze(userIds), alertWords: Object.freeze(alertWords.map((w) => Object.freeze(w))) };
  });
}

/** Every group containing the user, directly or through subgroups. */
export async function cachedGroupsContaining(ctx: AppContext, db: Queryable, user: Pick<User, "realm_id" | "id">): Promise<ReadonlySet<number>> {
  return ctx.caches.groupsContaining.get(user.realm_id, user.id, () => groupIdsContainingUser(db, user.realm_id, user.id));
}

/** The realm's linkifiers in their order (shared: never change them in place). */
export function cachedLinkifiers(ctx: AppContext, db: Queryable, realmId: number): Promise<Linkifier[]> {
  return ctx.caches.linkifiers.get(realmId, async () => Object.freeze((await linkifiersOfRealm(db, realmId)).map((l) => Object.freeze(l))) as Linkifier[]);
}
