import type { Realm } from "../schema.js";
import type { Queryable } from "../tx.js";

export async function findRealmBySubdomain(db: Queryable, stringId: string): Promise<Realm | undefined> {
  return db.selectFrom("realms").selectAll().where("string_id", "=", stringId).executeTakeFirst();
}

export async function getRealm(db: Queryable, id: number): Promise<Realm> {
  return db.selectFrom("realms").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** Every organization on this server, oldest first (start-up log, `parley list-realms`). */
export async function listRealms(db: Queryable): Promise<Realm[]> {
  return db.selectFrom("realms").selectAll().orderBy("id").execute();
}
