/**
 * The view-side checks of an invitation request, in upstream's order: channels (each
 * accessible, then permission to subscribe others unless default) and groups (each
 * existing, active, not a system group, and one the caller may add members to).
 */
import { ApiError } from "../errors.js";
import type { Channel, Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { defaultChannelIds } from "../db/queries/channels.js";
import { groupIdsContainingUser } from "../db/queries/user-groups.js";
import { accessChannelById } from "./channels.js";

export async function checkInviteChannels(db: Queryable, realm: Realm, user: User, channelIds: readonly number[]): Promise<Channel[]> {
  const channels: Channel[] = [];
  for (const id of channelIds) {
    try {
      channels.push((await accessChannelById(db, user, id)).channel);
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError(`Invalid channel ID ${id}. No invites were sent.`);
      throw err;
    }
  }
  const defaults = new Set(await defaultChannelIds(db, realm.id));
  if (channels.some((c) => !defaults.has(c.id))) {
    const mine = await groupIdsContainingUser(db, realm.id, user.id);
    if (realm.can_add_subscribers_group_id === null || !mine.has(realm.can_add_subscribers_group_id)) {
      throw new ApiError("You do not have permission to subscribe other users to channels.");
    }
  }
  return channels;
}

export async function checkInviteGroups(db: Queryable, realm: Realm, user: User, groupIds: readonly number[]): Promise<number[]> {
  if (groupIds.length === 0) return [];
  const mine = await groupIdsContainingUser(db, realm.id, user.id);
  const rows = await db
    .selectFrom("user_groups")
    .selectAll()
    .where("realm_id", "=", realm.id)
    .where("id", "in", [...groupIds])
    .where("name", "is not", null)
    .execute();
  const byId = new Map(rows.map((g) => [g.id, g]));
  const has = (setting: number | null) => setting !== null && mine.has(setting);
  for (const id of groupIds) {
    const group = byId.get(id);
    if (!group) throw new ApiError("Invalid user group");
    if (group.deactivated) throw new ApiError("User group is deactivated.");
    if (group.is_system_group) throw new ApiError("Insufficient permission");
    if (!has(realm.can_manage_all_groups_group_id) && !has(group.can_manage_group_id) && !has(group.can_add_members_group_id)) {
      throw new ApiError("Insufficient permission");
    }
  }
  return [...new Set(groupIds)];
}
