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

/** The realm's subgroup edges: [supergroup, subgroup] pairs. */
async function subgroupEdges(db: Queryable, realmId: number) {
  return db.selectFrom("user_group_subgroups").select(["supergroup_id", "subgroup_id"]).where("realm_id", "=", realmId).execute();
}

type Edge = { supergroup_id: number; subgroup_id: number };

/**
 * Groups reachable from `start` (included) by following edges downwards (to subgroups)
 * or upwards (to supergroups). Pure; the edges are loaded once per request.
 */
export function reachableGroups(edges: readonly Edge[], start: Iterable<number>, direction: "down" | "up"): Set<number> {
  const result = new Set(start);
  let frontier = [...result];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const e of edges) {
      const [from, to] = direction === "down" ? [e.supergroup_id, e.subgroup_id] : [e.subgroup_id, e.supergroup_id];
      if (frontier.includes(from) && !result.has(to)) {
        result.add(to);
        next.push(to);
      }
    }
    frontier = next;
  }
  return result;
}

/** All groups containing the user, directly or through subgroups (two queries). */
export async function groupIdsContainingUser(db: Queryable, realmId: number, userId: number): Promise<Set<number>> {
  const direct = await db
    .selectFrom("user_group_members")
    .select("group_id")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .execute();
  if (direct.length === 0) return new Set();
  return reachableGroups(await subgroupEdges(db, realmId), direct.map((r) => r.group_id), "up");
}

/** Active members of each group, including members of its subgroups (two queries in all). */
export async function groupMemberIdsRecursive(db: Queryable, realmId: number, groupIds: readonly number[]): Promise<Map<number, Set<number>>> {
  const out = new Map<number, Set<number>>();
  if (groupIds.length === 0) return out;
  const edges = await subgroupEdges(db, realmId);
  const closure = new Map(groupIds.map((g) => [g, reachableGroups(edges, [g], "down")]));
  const all = [...new Set([...closure.values()].flatMap((s) => [...s]))];
  const members = await db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select(["user_group_members.group_id", "user_group_members.user_id"])
    .where("user_group_members.realm_id", "=", realmId)
    .where("user_group_members.group_id", "in", all)
    .where("users.is_active", "=", 1)
    .execute();
  for (const [g, sub] of closure) out.set(g, new Set(members.filter((m) => sub.has(m.group_id)).map((m) => m.user_id)));
  return out;
}

export async function isUserInGroup(db: Queryable, realmId: number, userId: number, groupId: number): Promise<boolean> {
  return (await groupIdsContainingUser(db, realmId, userId)).has(groupId);
}
