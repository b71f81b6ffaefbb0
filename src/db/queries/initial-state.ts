/** Reads behind POST /register's initial state that no other family owns (one query each). */
import { compiledOnce } from "../compiled.js";
import type { UserTopicRow } from "./user-topics.js";
import type { Queryable } from "../tx.js";

export async function listLinkifiers(db: Queryable, realmId: number) {
  return db.selectFrom("linkifiers").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute();
}

export const listUserTopics: (db: Queryable, realmId: number, userId: number) => Promise<UserTopicRow[]> = compiledOnce((db, realmId: number, userId: number) =>
  db.selectFrom("user_topics").selectAll().where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("last_updated").orderBy("id"),
);

const alertWordsOfUser = compiledOnce((db, realmId: number, userId: number) =>
  db.selectFrom("alert_words").select("word").where("realm_id", "=", realmId).where("user_id", "=", userId).orderBy("id"),
);

export async function listAlertWords(db: Queryable, realmId: number, userId: number): Promise<string[]> {
  const rows = await alertWordsOfUser(db, realmId, userId);
  return rows.map((r) => r.word);
}

export async function listUserStatuses(db: Queryable, realmId: number) {
  return db.selectFrom("user_status").selectAll().where("realm_id", "=", realmId).execute();
}

/** Every user group of the realm, named and anonymous, by id. */
export async function listRealmUserGroups(db: Queryable, realmId: number) {
  return db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
}

/** Direct memberships of every group of the realm. */
export async function listRealmGroupMembers(db: Queryable, realmId: number) {
  return db.selectFrom("user_group_members").select(["group_id", "user_id"]).where("realm_id", "=", realmId).execute();
}

/** Direct subgroup edges of every group of the realm. */
export async function listRealmGroupSubgroups(db: Queryable, realmId: number) {
  return db.selectFrom("user_group_subgroups").select(["supergroup_id", "subgroup_id"]).where("realm_id", "=", realmId).execute();
}

export async function listRealmEmoji(db: Queryable, realmId: number) {
  return db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
}
