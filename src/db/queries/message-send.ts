/**
 * The send path's reads, compiled once (src/db/compiled.ts): building a Kysely query cost
 * more CPU than running it on SQLite. Same rows as their general counterparts in
 * channels.ts, subscriptions.ts and user-groups.ts, for one channel or one user.
 */
import { sql } from "kysely";
import { compiledOnce } from "../compiled.js";
import { inIntegerList, integerListParam, lower } from "../dialect.js";
import type { Channel } from "../schema.js";
import type { Queryable } from "../tx.js";

const channelById = compiledOnce((db, realmId: number, channelId: number) => db.selectFrom("channels").selectAll().where("realm_id", "=", realmId).where("id", "=", channelId));

const channelByLowerName = compiledOnce((db, realmId: number, lowerName: string) =>
  db.selectFrom("channels").selectAll().where("realm_id", "=", realmId).where(lower("name"), "=", lowerName),
);

export async function channelForSend(db: Queryable, realmId: number, indicator: { id: number } | { name: string }): Promise<Channel | undefined> {
  const [row] = "id" in indicator ? await channelById(db, realmId, indicator.id) : await channelByLowerName(db, realmId, indicator.name.toLowerCase());
  return row;
}

const activeSubscribers = compiledOnce((db, realmId: number, recipientId: number) =>
  db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select("subscriptions.user_id")
    .where("subscriptions.realm_id", "=", realmId)
    .where("subscriptions.recipient_id", "=", recipientId)
    .where("subscriptions.active", "=", sql.lit(1))
    .where("users.is_active", "=", sql.lit(1))
    .orderBy("subscriptions.user_id"),
);

/** Active subscribers (active users only) of the channel, ascending. */
export async function channelSubscriberIds(db: Queryable, realmId: number, channel: Pick<Channel, "recipient_id">): Promise<number[]> {
  if (channel.recipient_id === null) return [];
  return (await activeSubscribers(db, realmId, channel.recipient_id)).map((r) => r.user_id);
}

// Parameters in SQL order: the join's condition comes before the WHERE clause.
const subscribersWithWords = compiledOnce((db, wordsRealmId: number, realmId: number, recipientId: number) =>
  db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .leftJoin("alert_words", (join) => join.onRef("alert_words.user_id", "=", "subscriptions.user_id").on("alert_words.realm_id", "=", wordsRealmId))
    .select(["subscriptions.user_id", "alert_words.word"])
    .where("subscriptions.realm_id", "=", realmId)
    .where("subscriptions.recipient_id", "=", recipientId)
    .where("subscriptions.active", "=", sql.lit(1))
    .where("users.is_active", "=", sql.lit(1))
    .orderBy("subscriptions.user_id"),
);

/**
 * The channel's active subscribers (as channelSubscriberIds) and their alert words, in one
 * statement: the recipients of a channel message and what computeFlags needs of them.
 */
export async function channelRecipients(
  db: Queryable,
  realmId: number,
  channel: Pick<Channel, "recipient_id">,
): Promise<{ userIds: number[]; alertWords: Array<{ user_id: number; word: string }> }> {
  if (channel.recipient_id === null) return { userIds: [], alertWords: [] };
  const userIds: number[] = [];
  const alertWords: Array<{ user_id: number; word: string }> = [];
  // The join has a row per (subscriber, word), or one with no word; rows come by user id.
  for (const row of await subscribersWithWords(db, realmId, realmId, channel.recipient_id)) {
    if (userIds[userIds.length - 1] !== row.user_id) userIds.push(row.user_id);
    if (row.word !== null) alertWords.push({ user_id: row.user_id, word: row.word });
  }
  return { userIds, alertWords };
}

const alertWordsIn = compiledOnce((db, realmId: number, userIds: string | number[]) =>
  db.selectFrom("alert_words").select(["user_id", "word"]).where("realm_id", "=", realmId).where(inIntegerList(db, "user_id", userIds)),
);

/** Alert words of these users. */
export async function alertWordsOfRecipients(db: Queryable, realmId: number, userIds: readonly number[]): Promise<Array<{ user_id: number; word: string }>> {
  if (userIds.length === 0) return [];
  return alertWordsIn(db, realmId, integerListParam(db, userIds));
}
