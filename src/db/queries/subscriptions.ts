/** Subscription rows: who is subscribed to which channel (by the channel's recipient). */
import { sql } from "kysely";
import type { Subscription } from "../schema.js";
import type { Queryable } from "../tx.js";
import { chunked, SQL_VALUES_PER_STATEMENT } from "../chunks.js";
import { compiledOnce } from "../compiled.js";
import { inIntegerList, integerListParam } from "../dialect.js";

/** One user's channel subscriptions (all, or only active ones), with the channel's id. */
export async function channelSubscriptionsOfUser(
  db: Queryable,
  realmId: number,
  userId: number,
  opts: { activeOnly: boolean },
): Promise<Array<Subscription & { channel_id: number }>> {
  return (opts.activeOnly ? activeChannelSubscriptions : allChannelSubscriptions)(db, realmId, userId);
}

const channelSubscriptions = (db: Queryable, realmId: number, userId: number) =>
  db
    .selectFrom("subscriptions")
    .innerJoin("recipients", "recipients.id", "subscriptions.recipient_id")
    .selectAll("subscriptions")
    .select("recipients.type_id as channel_id")
    .where("subscriptions.realm_id", "=", realmId)
    .where("subscriptions.user_id", "=", userId)
    .where("recipients.type", "=", sql.lit(2))
    .orderBy("subscriptions.id");
const allChannelSubscriptions = compiledOnce(channelSubscriptions);
const activeChannelSubscriptions = compiledOnce((db, realmId: number, userId: number) => channelSubscriptions(db, realmId, userId).where("subscriptions.active", "=", sql.lit(1)));

/** Active subscriptions of one user, with the subscribed channel's id. */
export function activeSubscriptionsOfUser(db: Queryable, realmId: number, userId: number) {
  return channelSubscriptionsOfUser(db, realmId, userId, { activeOnly: true });
}

const activeAmongRecipients = compiledOnce((db, realmId: number, userId: number, recipientIds: string | number[]) =>
  db
    .selectFrom("subscriptions")
    .select("recipient_id")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("active", "=", sql.lit(1))
    .where(inIntegerList(db, "recipient_id", recipientIds)),
);

/**
 * Which of these channels (by their recipient ids) the user is actively subscribed to: a
 * lookup per channel in the (user_id, recipient_id) index, where subscribedChannelIds reads
 * every subscription of the user (a message's access check read 100 rows for one).
 */
export async function subscribedRecipientIds(db: Queryable, realmId: number, userId: number, recipientIds: readonly number[]): Promise<Set<number>> {
  if (recipientIds.length === 0) return new Set();
  return new Set((await activeAmongRecipients(db, realmId, userId, integerListParam(db, recipientIds))).map((r) => r.recipient_id));
}

/** Ids of the channels the user is actively subscribed to. */
export async function subscribedChannelIds(db: Queryable, realmId: number, userId: number): Promise<Set<number>> {
  const rows = await activeSubscriptionsOfUser(db, realmId, userId);
  return new Set(rows.map((r) => r.channel_id));
}

const activeSubscriptionRow = compiledOnce((db, realmId: number, userId: number, recipientId: number) =>
  db.selectFrom("subscriptions").select("active").where("realm_id", "=", realmId).where("user_id", "=", userId).where("recipient_id", "=", recipientId),
);

/** Whether the user is actively subscribed to the channel (one indexed row, however many subscriptions they have). */
export async function isSubscribedTo(db: Queryable, realmId: number, userId: number, channel: { recipient_id: number | null }): Promise<boolean> {
  if (channel.recipient_id === null) return false;
  const [row] = await activeSubscriptionRow(db, realmId, userId, channel.recipient_id);
  return row?.active === 1;
}

/**
 * Active subscribers (active users only) of each channel, by channel id, in one query.
 * Channels with no subscriber get an empty list.
 */
export async function subscriberIdsByChannel(db: Queryable, realmId: number, channelIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(channelIds.map((id) => [id, []]));
  if (channelIds.length === 0) return out;
  const rows = await db
    .selectFrom("subscriptions")
    .innerJoin("recipients", "recipients.id", "subscriptions.recipient_id")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select(["recipients.type_id as channel_id", "subscriptions.user_id"])
    .where("subscriptions.realm_id", "=", realmId)
    .where("subscriptions.active", "=", 1)
    .where("users.is_active", "=", 1)
    .where("recipients.type", "=", 2)
    .where("recipients.type_id", "in", [...channelIds])
    .orderBy("subscriptions.user_id")
    .execute();
  for (const r of rows) out.get(r.channel_id)?.push(r.user_id);
  return out;
}

/** All subscription rows (active or not) for these users and recipients. */
export async function subscriptionRows(
  db: Queryable,
  realmId: number,
  userIds: readonly number[],
  recipientIds: readonly number[],
): Promise<Subscription[]> {
  if (userIds.length === 0 || recipientIds.length === 0) return [];
  return db
    .selectFrom("subscriptions")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("user_id", "in", [...userIds])
    .where("recipient_id", "in", [...recipientIds])
    .execute();
}

export async function countActiveSubscriptionsOfUsers(db: Queryable, realmId: number, userIds: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(userIds.map((id) => [id, 0]));
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom("subscriptions")
    .select(["user_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("realm_id", "=", realmId)
    .where("user_id", "in", [...userIds])
    .groupBy("user_id")
    .execute();
  for (const r of rows) out.set(r.user_id, Number(r.n));
  return out;
}

export async function insertSubscriptions(
  db: Queryable,
  rows: Array<{ realm_id: number; user_id: number; recipient_id: number; color: string }>,
): Promise<void> {
  // Four values per row.
  for (const chunk of chunked(rows, SQL_VALUES_PER_STATEMENT / 4)) await db.insertInto("subscriptions").values(chunk).execute();
}

export async function setSubscriptionsActive(db: Queryable, realmId: number, ids: readonly number[], active: boolean): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable("subscriptions")
    .set({ active: active ? 1 : 0 })
    .where("realm_id", "=", realmId)
    .where("id", "in", [...ids])
    .execute();
}

/** Number of active subscribers (active users) per channel, in one query. */
export async function subscriberCounts(db: Queryable, realmId: number, channelIds: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(channelIds.map((id) => [id, 0]));
  if (channelIds.length === 0) return out;
  const rows = await db
    .selectFrom("subscriptions")
    .innerJoin("recipients", "recipients.id", "subscriptions.recipient_id")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select(["recipients.type_id as channel_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("subscriptions.realm_id", "=", realmId)
    .where("subscriptions.active", "=", 1)
    .where("users.is_active", "=", 1)
    .where("recipients.type", "=", 2)
    .where("recipients.type_id", "in", [...channelIds])
    .groupBy("recipients.type_id")
    .execute();
  for (const r of rows) out.set(r.channel_id, Number(r.n));
  return out;
}
