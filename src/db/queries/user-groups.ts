import type { Queryable } from "../tx.js";

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

/** All groups containing the user, directly or through subgroups (recursive). */
export async function groupIdsContainingUser(db: Queryable, realmId: number, userId: number): Promise<Set<number>> {
  const direct = await db
    .selectFrom("user_group_members")
    .select("group_id")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .execute();
  const result = new Set(direct.map((r) => r.group_id));
  if (result.size === 0) return result;
  const edges = await db
    .selectFrom("user_group_subgroups")
    .select(["supergroup_id", "subgroup_id"])
    .where("realm_id", "=", realmId)
    .execute();
  let frontier = [...result];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const e of edges) {
      if (frontier.includes(e.subgroup_id) && !result.has(e.supergroup_id)) {
        result.add(e.supergroup_id);
        next.push(e.supergroup_id);
      }
    }
    frontier = next;
  }
  return result;
}

export async function isUserInGroup(db: Queryable, realmId: number, userId: number, groupId: number): Promise<boolean> {
  return (await groupIdsContainingUser(db, realmId, userId)).has(groupId);
}
