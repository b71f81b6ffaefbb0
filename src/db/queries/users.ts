import { USER_CARD_COLUMNS, type Realm, type User, type UserCard, type UserUpdate } from "../schema.js";
import type { Queryable } from "../tx.js";
import { compiledOnce } from "../compiled.js";

const userByApiKey = compiledOnce((db, apiKey: string) => db.selectFrom("users").selectAll().where("api_key", "=", apiKey));
const realmById = compiledOnce((db, id: number) => db.selectFrom("realms").selectAll().where("id", "=", id));

/** The user owning an API key, with their realm (the hot auth path: two precompiled lookups). */
export async function findUserByApiKey(db: Queryable, apiKey: string): Promise<{ user: User; realm: Realm } | undefined> {
  const [user] = await userByApiKey(db, apiKey);
  if (!user) return undefined;
  const [realm] = await realmById(db, user.realm_id);
  return { user, realm };
}

export async function findUserById(db: Queryable, realmId: number, userId: number): Promise<User | undefined> {
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("id", "=", userId).executeTakeFirst();
}

export async function findUserByDeliveryEmail(db: Queryable, realmId: number, email: string): Promise<User | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("delivery_email", "=", email.toLowerCase())
    .executeTakeFirst();
}

/** Users of the realm (active and deactivated, humans and bots), optionally only the given ids. */
/** The realm's users (or those of `ids`), as cards, by id. */
export async function listRealmUsers(db: Queryable, realmId: number, ids?: readonly number[]): Promise<UserCard[]> {
  let q = db.selectFrom("users").select(USER_CARD_COLUMNS).where("realm_id", "=", realmId);
  if (ids !== undefined) {
    if (ids.length === 0) return [];
    q = q.where("id", "in", [...ids]);
  }
  return q.orderBy("id").execute();
}

/** The realm's bots as full rows (their API keys go to the administrators' /register). */
export async function listRealmBots(db: Queryable, realmId: number): Promise<User[]> {
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("is_bot", "=", 1).orderBy("id").execute();
}

/** Highest message id the user has a personal row for; -1 when none (one query). */
const maxMessageIdQuery = compiledOnce((db, realmId: number, userId: number) =>
  db
    .selectFrom("user_messages")
    .select((eb) => eb.fn.max("message_id").as("max_id"))
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId),
);

export async function maxMessageIdForUser(db: Queryable, realmId: number, userId: number): Promise<number> {
  const [row] = await maxMessageIdQuery(db, realmId, userId);
  const max = row?.max_id;
  return max === null || max === undefined ? -1 : Number(max);
}

/**
 * The realm's active users (humans and bots) with their role: the audience of realm-wide
 * events. The notification bot is no member: upstream's system bots live outside the realm.
 */
export async function activeRealmUsers(db: Queryable, realmId: number): Promise<Array<{ id: number; role: number; is_bot: number }>> {
  return db
    .selectFrom("users")
    .leftJoin("realms", (join) => join.onRef("realms.notification_bot_id", "=", "users.id"))
    .select(["users.id", "users.role", "users.is_bot"])
    .where("users.realm_id", "=", realmId)
    .where("users.is_active", "=", 1)
    .where("realms.id", "is", null)
    .execute();
}

/** Ids of activeRealmUsers. */
export async function activeUserIds(db: Queryable, realmId: number): Promise<number[]> {
  return (await activeRealmUsers(db, realmId)).map((u) => u.id);
}

/** Number of active human owners of the realm. */
export async function countActiveHumanOwners(db: Queryable, realmId: number, ownerRole: number): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("realm_id", "=", realmId)
    .where("role", "=", ownerRole)
    .where("is_bot", "=", 0)
    .where("is_active", "=", 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateUserRow(db: Queryable, realmId: number, userId: number, changes: UserUpdate): Promise<void> {
  await db.updateTable("users").set(changes).where("realm_id", "=", realmId).where("id", "=", userId).execute();
}

/** The realm's first active human owner, by id (the CLI acts as this user). */
export async function firstActiveOwner(db: Queryable, realmId: number, ownerRole: number): Promise<User | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("role", "=", ownerRole)
    .where("is_active", "=", 1)
    .where("is_bot", "=", 0)
    .orderBy("id")
    .executeTakeFirst();
}

/** Every user row of a realm but `exceptId` (the notification bot), in id order: `parley list-users`. */
export async function listRealmUserRows(db: Queryable, realmId: number, exceptId: number | null) {
  return db
    .selectFrom("users")
    .select(["id", "delivery_email", "full_name", "role", "is_active", "is_bot"])
    .where("realm_id", "=", realmId)
    .where("id", "!=", exceptId ?? -1)
    .orderBy("id")
    .execute();
}
