/**
 * User groups: rows, direct memberships and subgroup edges. Nesting is resolved in SQL
 * with one recursive query (WITH RECURSIVE, on both engines) whatever the depth: the
 * closure of groups below (subgroups) or above (supergroups) a set of groups.
 */
import { compiledOnce } from "../compiled.js";
import type { Queryable } from "../tx.js";
import type { UserGroup } from "../schema.js";

/** Ids are 32-bit integers on PostgreSQL: a larger one names no row (and must not reach SQL). */
const MAX_ID = 2147483647;
const storable = (ids: readonly number[]) => ids.filter(isStorableId);
export const isStorableId = (id: number) => id >= 1 && id <= MAX_ID;

/** Ids of the realm's system groups by name. */
export async function systemGroupIds(db: Queryable, realmId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("user_groups")
    .select(["id", "name"])
    .where("realm_id", "=", realmId)
    .where("is_system_group", "=", 1)
    .execute();
  return new Map(rows.map((r) => [r.name!, r.id]));
}

/**
 * The subgroup closure as a recursive common table expression `closure(root_id, group_id)`:
 * for each start group (of this realm), every group reachable by following edges down
 * (to subgroups) or up (to supergroups), the start group included. UNION (not UNION ALL)
 * stops on a cycle.
 */
function withClosure(db: Queryable, realmId: number, start: readonly number[], direction: "down" | "up") {
  const [from, to] = direction === "down" ? (["supergroup_id", "subgroup_id"] as const) : (["subgroup_id", "supergroup_id"] as const);
  return db.withRecursive("closure(root_id, group_id)", (qb) =>
    qb
      .selectFrom("user_groups")
      .select(["user_groups.id as root_id", "user_groups.id as group_id"])
      .where("user_groups.realm_id", "=", realmId)
      .where("user_groups.id", "in", storable(start))
      .union((qb2) =>
        qb2
          .selectFrom("user_group_subgroups as e")
          .innerJoin("closure", "closure.group_id", `e.${from}`)
          .select(["closure.root_id as root_id", `e.${to} as group_id`]),
      ),
  );
}

/** The closure as [root, group] pairs: one query whatever the depth. */
export async function groupClosure(
  db: Queryable,
  realmId: number,
  start: readonly number[],
  direction: "down" | "up",
): Promise<Array<{ root_id: number; group_id: number }>> {
  if (storable(start).length === 0) return [];
  return withClosure(db, realmId, start, direction).selectFrom("closure").select(["root_id", "group_id"]).execute();
}

/** Groups below each group (itself included), by group. */
export async function recursiveSubgroupIds(db: Queryable, realmId: number, groupIds: readonly number[]): Promise<Map<number, Set<number>>> {
  const out = new Map<number, Set<number>>();
  for (const { root_id, group_id } of await groupClosure(db, realmId, groupIds, "down")) {
    const set = out.get(root_id) ?? new Set<number>();
    set.add(group_id);
    out.set(root_id, set);
  }
  return out;
}

/** All groups containing the user, directly or through subgroups: one recursive query, compiled once (every send checks it). */
export async function groupIdsContainingUser(db: Queryable, realmId: number, userId: number): Promise<Set<number>> {
  return new Set((await containingGroups(db, realmId, userId)).map((r) => r.group_id));
}

const containingGroups = compiledOnce((db, realmId: number, userId: number) =>
  db
    .withRecursive("containing(group_id)", (qb) =>
      qb
        .selectFrom("user_group_members")
        .select("user_group_members.group_id as group_id")
        .where("user_group_members.realm_id", "=", realmId)
        .where("user_group_members.user_id", "=", userId)
        .union((qb2) =>
          qb2
            .selectFrom("user_group_subgroups as e")
            .innerJoin("containing", "containing.group_id", "e.subgroup_id")
            .select("e.supergroup_id as group_id"),
        ),
    )
    .selectFrom("containing")
    .select("group_id"),
);

/** Active members of each group, including members of its subgroups: one recursive query. */
export async function groupMemberIdsRecursive(db: Queryable, realmId: number, groupIds: readonly number[]): Promise<Map<number, Set<number>>> {
  const out = new Map<number, Set<number>>(groupIds.map((g) => [g, new Set<number>()]));
  if (storable(groupIds).length === 0) return out;
  const rows = await withClosure(db, realmId, groupIds, "down")
    .selectFrom("closure")
    .innerJoin("user_group_members as m", "m.group_id", "closure.group_id")
    .innerJoin("users", "users.id", "m.user_id")
    .select(["closure.root_id as root_id", "m.user_id as user_id"])
    .where("users.is_active", "=", 1)
    .execute();
  for (const r of rows) out.get(r.root_id)?.add(r.user_id);
  return out;
}

export async function isUserInGroup(db: Queryable, realmId: number, userId: number, groupId: number): Promise<boolean> {
  return (await groupIdsContainingUser(db, realmId, userId)).has(groupId);
}

/** A group of the realm by id, named or anonymous. */
export async function findUserGroup(db: Queryable, realmId: number, groupId: number): Promise<UserGroup | undefined> {
  if (storable([groupId]).length === 0) return undefined;
  return db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("id", "=", groupId).executeTakeFirst();
}

/** Named groups of the realm with these ids. */
export async function namedGroupsByIds(db: Queryable, realmId: number, ids: readonly number[]): Promise<UserGroup[]> {
  ids = storable(ids);
  if (ids.length === 0) return [];
  return db
    .selectFrom("user_groups")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("name", "is not", null)
    .where("id", "in", [...ids])
    .orderBy("id")
    .execute();
}

/** Named groups of the realm holding any of these ids as a permission setting. */
export async function groupsWithSettingIn(db: Queryable, realmId: number, settingGroupIds: readonly number[]): Promise<UserGroup[]> {
  if (settingGroupIds.length === 0) return [];
  const ids = [...settingGroupIds];
  return db
    .selectFrom("user_groups")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("name", "is not", null)
    .where("deactivated", "=", 0)
    .where((eb) =>
      eb.or([
        eb("can_add_members_group_id", "in", ids),
        eb("can_join_group_id", "in", ids),
        eb("can_leave_group_id", "in", ids),
        eb("can_manage_group_id", "in", ids),
        eb("can_mention_group_id", "in", ids),
        eb("can_remove_members_group_id", "in", ids),
      ]),
    )
    .orderBy("id")
    .execute();
}

export async function namedGroupByName(db: Queryable, realmId: number, name: string): Promise<UserGroup | undefined> {
  return db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("name", "=", name).executeTakeFirst();
}

export async function insertUserGroup(
  db: Queryable,
  row: { realm_id: number; name: string | null; description?: string; date_created: number; creator_id?: number | null },
): Promise<number> {
  const { id } = await db.insertInto("user_groups").values(row).returning("id").executeTakeFirstOrThrow();
  return id;
}

export async function updateUserGroupRow(
  db: Queryable,
  realmId: number,
  groupId: number,
  changes: Partial<Pick<UserGroup, "name" | "description" | "deactivated"> & Record<`${string}_group_id`, number>>,
): Promise<void> {
  await db.updateTable("user_groups").set(changes).where("realm_id", "=", realmId).where("id", "=", groupId).execute();
}

/** Direct members of a group (active users only unless told otherwise), by id. */
export async function directMemberIds(db: Queryable, realmId: number, groupId: number, opts: { activeOnly: boolean }): Promise<number[]> {
  let q = db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select("user_group_members.user_id")
    .where("user_group_members.realm_id", "=", realmId)
    .where("user_group_members.group_id", "=", groupId);
  if (opts.activeOnly) q = q.where("users.is_active", "=", 1);
  return (await q.orderBy("user_group_members.user_id").execute()).map((r) => r.user_id);
}

/** Direct subgroups of a group, by id. */
export async function directSubgroupIds(db: Queryable, realmId: number, groupId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("user_group_subgroups")
    .select("subgroup_id")
    .where("realm_id", "=", realmId)
    .where("supergroup_id", "=", groupId)
    .orderBy("subgroup_id")
    .execute();
  return rows.map((r) => r.subgroup_id);
}

/** Direct supergroups of a group: named ones that are not deactivated, and anonymous ones. */
export async function directSupergroups(db: Queryable, realmId: number, groupId: number): Promise<Array<{ id: number; named: boolean }>> {
  const rows = await db
    .selectFrom("user_group_subgroups as e")
    .innerJoin("user_groups as g", "g.id", "e.supergroup_id")
    .select(["g.id", "g.name", "g.deactivated"])
    .where("e.realm_id", "=", realmId)
    .where("e.subgroup_id", "=", groupId)
    .orderBy("g.id")
    .execute();
  return rows.filter((r) => r.name === null || r.deactivated === 0).map((r) => ({ id: r.id, named: r.name !== null }));
}

export async function insertGroupMembers(db: Queryable, realmId: number, groupId: number, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db
    .insertInto("user_group_members")
    .values(userIds.map((user_id) => ({ realm_id: realmId, group_id: groupId, user_id })))
    .execute();
}

export async function deleteGroupMembers(db: Queryable, realmId: number, groupId: number, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db
    .deleteFrom("user_group_members")
    .where("realm_id", "=", realmId)
    .where("group_id", "=", groupId)
    .where("user_id", "in", [...userIds])
    .execute();
}

/** Replaces an (anonymous) group's direct members and subgroups. */
export async function setGroupContents(db: Queryable, realmId: number, groupId: number, userIds: readonly number[], subgroupIds: readonly number[]): Promise<void> {
  await db.deleteFrom("user_group_members").where("realm_id", "=", realmId).where("group_id", "=", groupId).execute();
  await db.deleteFrom("user_group_subgroups").where("realm_id", "=", realmId).where("supergroup_id", "=", groupId).execute();
  await insertGroupMembers(db, realmId, groupId, userIds);
  await insertSubgroups(db, realmId, groupId, subgroupIds);
}

/** Deletes an anonymous group no setting uses any more (its rows and edges). */
export async function deleteAnonymousGroup(db: Queryable, realmId: number, groupId: number): Promise<void> {
  await db.deleteFrom("user_group_members").where("realm_id", "=", realmId).where("group_id", "=", groupId).execute();
  await db.deleteFrom("user_group_subgroups").where("realm_id", "=", realmId).where("supergroup_id", "=", groupId).execute();
  await db.deleteFrom("user_groups").where("realm_id", "=", realmId).where("id", "=", groupId).where("name", "is", null).execute();
}

export async function insertSubgroups(db: Queryable, realmId: number, groupId: number, subgroupIds: readonly number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  await db
    .insertInto("user_group_subgroups")
    .values(subgroupIds.map((subgroup_id) => ({ realm_id: realmId, supergroup_id: groupId, subgroup_id })))
    .execute();
}

export async function deleteSubgroups(db: Queryable, realmId: number, groupId: number, subgroupIds: readonly number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  await db
    .deleteFrom("user_group_subgroups")
    .where("realm_id", "=", realmId)
    .where("supergroup_id", "=", groupId)
    .where("subgroup_id", "in", [...subgroupIds])
    .execute();
}

/** Active users of the realm with these ids (bots included), by id. */
export async function activeUsersByIds(db: Queryable, realmId: number, ids: readonly number[]) {
  ids = storable(ids);
  if (ids.length === 0) return [];
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("is_active", "=", 1)
    .where("id", "in", [...ids])
    .orderBy("id")
    .execute();
}

/** Live channels holding any of these group ids in a permission setting. */
export async function channelsWithSettingIn(db: Queryable, realmId: number, settingGroupIds: readonly number[]) {
  if (settingGroupIds.length === 0) return [];
  const ids = [...settingGroupIds];
  return db
    .selectFrom("channels")
    .select(["id", "can_administer_channel_group_id", "can_remove_subscribers_group_id", "can_send_message_group_id"])
    .where("realm_id", "=", realmId)
    .where("deactivated", "=", 0)
    .where((eb) =>
      eb.or([eb("can_administer_channel_group_id", "in", ids), eb("can_remove_subscribers_group_id", "in", ids), eb("can_send_message_group_id", "in", ids)]),
    )
    .orderBy("id")
    .execute();
}

/**
 * Direct memberships as the API shows them: a named group lists its active members only
 * (upstream hides deactivated users there); anonymous groups, which back setting values,
 * keep theirs.
 */
export async function listRealmGroupMembersForApi(db: Queryable, realmId: number) {
  return db
    .selectFrom("user_group_members as m")
    .innerJoin("users", "users.id", "m.user_id")
    .innerJoin("user_groups as g", "g.id", "m.group_id")
    .select(["m.group_id", "m.user_id"])
    .where("m.realm_id", "=", realmId)
    .where((eb) => eb.or([eb("users.is_active", "=", 1), eb("g.name", "is", null)]))
    .execute();
}

/** Named groups (system ones included) the user is a direct member of, by id. */
export async function namedGroupIdsWithDirectMember(db: Queryable, realmId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("user_group_members as m")
    .innerJoin("user_groups as g", "g.id", "m.group_id")
    .select("g.id")
    .where("m.realm_id", "=", realmId)
    .where("m.user_id", "=", userId)
    .where("g.name", "is not", null)
    .orderBy("g.id")
    .execute();
  return rows.map((r) => r.id);
}
