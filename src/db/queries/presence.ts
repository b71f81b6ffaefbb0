/** Presence rows and the realm-wide presence sequence (presence_last_update_id). */
import { sql } from "kysely";
import type { Queryable } from "../tx.js";
import { compiledOnce } from "../compiled.js";

export interface PresenceRow {
  user_id: number;
  last_active_time: number | null;
  last_connected_time: number | null;
  last_update_id: number;
}

/** A presence row joined with the user fields the API records need. */
export interface PresenceWithUser extends PresenceRow {
  date_joined: number;
  delivery_email: string;
  email_address_visibility: number;
}

const presenceOfUser = compiledOnce((db, realmId: number, userId: number) =>
  db.selectFrom("presence").select(["user_id", "last_active_time", "last_connected_time", "last_update_id"]).where("realm_id", "=", realmId).where("user_id", "=", userId),
);

export async function findPresence(db: Queryable, realmId: number, userId: number): Promise<PresenceRow | undefined> {
  const [row] = await presenceOfUser(db, realmId, userId);
  return row;
}

/**
 * Takes the next value of the realm's presence sequence. The UPDATE locks the
 * sequence row until commit, so callers keep their transaction short.
 */
export async function nextPresenceUpdateId(db: Queryable, realmId: number): Promise<number> {
  const bumped = await db
    .updateTable("presence_sequence")
    .set((eb) => ({ last_update_id: eb("last_update_id", "+", 1) }))
    .where("realm_id", "=", realmId)
    .returning("last_update_id")
    .executeTakeFirst();
  if (bumped) return Number(bumped.last_update_id);
  await db
    .insertInto("presence_sequence")
    .values({ realm_id: realmId, last_update_id: 0 })
    .onConflict((oc) => oc.column("realm_id").doNothing())
    .execute();
  return nextPresenceUpdateId(db, realmId);
}

export async function insertPresence(db: Queryable, realmId: number, row: PresenceRow): Promise<void> {
  await db
    .insertInto("presence")
    .values({ realm_id: realmId, ...row })
    .onConflict((oc) =>
      oc.column("user_id").doUpdateSet({
        last_active_time: row.last_active_time,
        last_connected_time: row.last_connected_time,
        last_update_id: row.last_update_id,
      }),
    )
    .execute();
}

export async function updatePresence(
  db: Queryable,
  realmId: number,
  userId: number,
  changes: Partial<Pick<PresenceRow, "last_active_time" | "last_connected_time" | "last_update_id">>,
): Promise<void> {
  await db.updateTable("presence").set(changes).where("realm_id", "=", realmId).where("user_id", "=", userId).execute();
}

/**
 * Presence rows of active, non-bot users who share presence (presence_enabled), in one
 * query. With `sinceUpdateId` only rows changed after it (uses the presence_realm_update
 * index, so the cost follows the number of changes); with `connectedSince` only rows
 * connected since then; with `userIds` only those users (non-empty).
 */
export async function listRealmPresence(
  db: Queryable,
  realmId: number,
  filter: { sinceUpdateId?: number; connectedSince?: number; userIds?: readonly number[] },
): Promise<PresenceWithUser[]> {
  // The incremental poll of a user who sees everyone: the hot case, compiled once.
  if (filter.sinceUpdateId !== undefined && filter.connectedSince === undefined && filter.userIds === undefined) {
    return presenceChangedSince(db, realmId, realmId, filter.sinceUpdateId);
  }
  let q = sharedPresence(db, realmId, realmId);
  if (filter.sinceUpdateId !== undefined) q = q.where("presence.last_update_id", ">", filter.sinceUpdateId);
  if (filter.connectedSince !== undefined) q = q.where("presence.last_connected_time", ">=", filter.connectedSince);
  if (filter.userIds !== undefined) q = q.where("presence.user_id", "in", [...filter.userIds]);
  return q.orderBy("presence.user_id").execute();
}

/** Presence rows of the realm's active humans who share presence (constants inlined, so the parameters are the two realm ids). */
function sharedPresence(db: Queryable, presenceRealmId: number, userRealmId: number) {
  return db
    .selectFrom("presence")
    .innerJoin("users", "users.id", "presence.user_id")
    .select([
      "presence.user_id",
      "presence.last_active_time",
      "presence.last_connected_time",
      "presence.last_update_id",
      "users.date_joined",
      "users.delivery_email",
      "users.email_address_visibility",
    ])
    .where("presence.realm_id", "=", presenceRealmId)
    .where("users.realm_id", "=", userRealmId)
    .where("users.is_active", "=", sql.lit(1))
    .where("users.is_bot", "=", sql.lit(0))
    .where("users.presence_enabled", "=", sql.lit(1));
}

const presenceChangedSince = compiledOnce((db, presenceRealmId: number, userRealmId: number, sinceUpdateId: number) =>
  sharedPresence(db, presenceRealmId, userRealmId).where("presence.last_update_id", ">", sinceUpdateId).orderBy("presence.user_id"),
);

const presenceSequenceOfRealm = compiledOnce((db, realmId: number) =>
  db.selectFrom("presence_sequence").select("last_update_id").where("realm_id", "=", realmId),
);

/** The realm's presence sequence (the newest update id), -1 before any report. */
export async function currentPresenceSequence(db: Queryable, realmId: number): Promise<number> {
  const [row] = await presenceSequenceOfRealm(db, realmId);
  return row === undefined ? -1 : Number(row.last_update_id);
}

/** A row of ownPresenceAndChangesSince: `own` 1 for the caller's stored row (user columns null), 0 for a changed row. */
const ownRowAndChangesSince = compiledOnce((db, ownRealmId: number, ownUserId: number, presenceRealmId: number, userRealmId: number, sinceUpdateId: number) =>
  db
    .selectFrom("presence")
    .select([
      "presence.user_id",
      "presence.last_active_time",
      "presence.last_connected_time",
      "presence.last_update_id",
      sql<number>`null`.as("date_joined"),
      sql<string>`null`.as("delivery_email"),
      sql<number>`null`.as("email_address_visibility"),
      sql<number>`1`.as("own"),
    ])
    .where("presence.realm_id", "=", ownRealmId)
    .where("presence.user_id", "=", ownUserId)
    .unionAll(sharedPresence(db, presenceRealmId, userRealmId).select(sql<number>`0`.as("own")).where("presence.last_update_id", ">", sinceUpdateId))
    .orderBy("user_id"),
);

/**
 * An incremental poll's reads in one statement: the caller's stored presence row (as
 * findPresence gives it) and the rows changed after `sinceUpdateId` (as listRealmPresence
 * with only sinceUpdateId gives them, in user id order).
 */
export async function ownPresenceAndChangesSince(
  db: Queryable,
  realmId: number,
  userId: number,
  sinceUpdateId: number,
): Promise<{ own: PresenceRow | undefined; changed: PresenceWithUser[] }> {
  const rows = await ownRowAndChangesSince(db, realmId, userId, realmId, realmId, sinceUpdateId);
  let own: PresenceRow | undefined;
  const changed: PresenceWithUser[] = [];
  for (const { own: isOwn, ...row } of rows) {
    if (isOwn) own = { user_id: row.user_id, last_active_time: row.last_active_time, last_connected_time: row.last_connected_time, last_update_id: row.last_update_id };
    else changed.push(row);
  }
  return { own, changed };
}
