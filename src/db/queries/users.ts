import type { Realm, User } from "../schema.js";
import type { Queryable } from "../tx.js";

/** The user owning an API key, with their realm, in one query (the hot auth path). */
export async function findUserByApiKey(db: Queryable, apiKey: string): Promise<{ user: User; realm: Realm } | undefined> {
  const user = await db.selectFrom("users").selectAll().where("api_key", "=", apiKey).executeTakeFirst();
  if (!user) return undefined;
  const realm = await db.selectFrom("realms").selectAll().where("id", "=", user.realm_id).executeTakeFirstOrThrow();
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
