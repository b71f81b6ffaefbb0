/**
 * A user's system-group memberships follow their role. Changing them sends upstream's
 * `user_group` add_members / remove_members events to the realm's active users.
 */
import type { AppContext } from "../context.js";
import type { Tx } from "../db/tx.js";
import { activeUserIds } from "../db/queries/users.js";
import { systemGroupIds } from "../db/queries/user-groups.js";
import { sendEventOnCommit } from "../events/send.js";
import { directSystemGroupsForRole } from "../lib/system-groups.js";

/**
 * Puts the user in exactly the system groups of `role`, comparing with the memberships
 * actually stored (so a membership out of step with the role is repaired, not duplicated).
 */
export async function setSystemGroupsForRole(tx: Tx, ctx: AppContext, realmId: number, userId: number, role: number): Promise<void> {
  const ids = await systemGroupIds(tx, realmId);
  const nameById = new Map([...ids].map(([name, id]) => [id, name]));
  const stored = await tx
    .selectFrom("user_group_members")
    .select("group_id")
    .where("realm_id", "=", realmId)
    .where("user_id", "=", userId)
    .where("group_id", "in", [...ids.values()])
    .execute();
  const before = new Set(stored.map((r) => nameById.get(r.group_id)!));
  const after = new Set<string>(directSystemGroupsForRole(role));
  const removed = [...before].filter((g) => !after.has(g));
  const added = [...after].filter((g) => !before.has(g));
  if (removed.length === 0 && added.length === 0) return;
  if (removed.length > 0) {
    await tx
      .deleteFrom("user_group_members")
      .where("realm_id", "=", realmId)
      .where("user_id", "=", userId)
      .where("group_id", "in", removed.map((g) => ids.get(g)!))
      .execute();
  }
  if (added.length > 0) {
    await tx
      .insertInto("user_group_members")
      .values(added.map((g) => ({ realm_id: realmId, group_id: ids.get(g)!, user_id: userId })))
      .execute();
  }
  // Group membership is visible to everyone in the realm, as upstream's realm_user_groups.
  const audience = await activeUserIds(tx, realmId);
  for (const g of removed) {
    sendEventOnCommit(tx, ctx, realmId, { type: "user_group", op: "remove_members", group_id: ids.get(g)!, user_ids: [userId] }, audience);
  }
  for (const g of added) {
    sendEventOnCommit(tx, ctx, realmId, { type: "user_group", op: "add_members", group_id: ids.get(g)!, user_ids: [userId] }, audience);
  }
}
