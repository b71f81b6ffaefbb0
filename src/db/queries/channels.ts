/** Channel rows: lookups scoped to the realm, creation with its recipient, updates. */
import type { Insertable, Updateable } from "kysely";
import type { Channel, ChannelTable } from "../schema.js";
import type { Queryable } from "../tx.js";
import { lower } from "../dialect.js";

/** Recipient type of a channel (1 personal, 2 channel, 3 direct-message group). */
export const RECIPIENT_CHANNEL = 2;

export async function findChannelById(db: Queryable, realmId: number, channelId: number): Promise<Channel | undefined> {
  return db.selectFrom("channels").selectAll().where("realm_id", "=", realmId).where("id", "=", channelId).executeTakeFirst();
}

/** Channel names compare case-insensitively, as upstream (iexact). */
export async function findChannelByName(db: Queryable, realmId: number, name: string): Promise<Channel | undefined> {
  return db
    .selectFrom("channels")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where(lower("name"), "=", name.toLowerCase())
    .executeTakeFirst();
}

export async function findChannelsByNames(db: Queryable, realmId: number, names: readonly string[]): Promise<Channel[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom("channels")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where(
      lower("name"),
      "in",
      names.map((n) => n.toLowerCase()),
    )
    .execute();
}

export async function findChannelsByIds(db: Queryable, realmId: number, ids: readonly number[]): Promise<Channel[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("channels").selectAll().where("realm_id", "=", realmId).where("id", "in", [...ids]).execute();
}

export async function listRealmChannels(db: Queryable, realmId: number, opts: { includeArchived?: boolean } = {}): Promise<Channel[]> {
  let q = db.selectFrom("channels").selectAll().where("realm_id", "=", realmId);
  if (!opts.includeArchived) q = q.where("deactivated", "=", 0);
  return q.orderBy("id").execute();
}

/** Inserts a channel and its recipient row (type 2), and links them. */
export async function insertChannel(db: Queryable, row: Insertable<ChannelTable>): Promise<Channel> {
  const channel = await db.insertInto("channels").values(row).returningAll().executeTakeFirstOrThrow();
  const { id: recipientId } = await db
    .insertInto("recipients")
    .values({ realm_id: row.realm_id, type: RECIPIENT_CHANNEL, type_id: channel.id })
    .returning("id")
    .executeTakeFirstOrThrow();
  await db.updateTable("channels").set({ recipient_id: recipientId }).where("id", "=", channel.id).execute();
  return { ...channel, recipient_id: recipientId };
}

export async function updateChannel(db: Queryable, realmId: number, channelId: number, set: Updateable<ChannelTable>): Promise<void> {
  await db.updateTable("channels").set(set).where("realm_id", "=", realmId).where("id", "=", channelId).execute();
}

export async function defaultChannelIds(db: Queryable, realmId: number): Promise<number[]> {
  const rows = await db.selectFrom("default_channels").select("channel_id").where("realm_id", "=", realmId).execute();
  return rows.map((r) => r.channel_id);
}

export async function addDefaultChannel(db: Queryable, realmId: number, channelId: number): Promise<void> {
  await db.insertInto("default_channels").values({ realm_id: realmId, channel_id: channelId }).execute();
}

export async function removeDefaultChannel(db: Queryable, realmId: number, channelId: number): Promise<void> {
  await db.deleteFrom("default_channels").where("realm_id", "=", realmId).where("channel_id", "=", channelId).execute();
}
