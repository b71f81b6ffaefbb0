/**
 * User-group changes (upstream zerver/actions/user_groups.py and the checks of its
 * views): create, membership and subgroup changes, settings, rename, deactivation and
 * reactivation. Each runs in one transaction, in upstream's check order, and publishes
 * upstream's `user_group` events to the realm's active users after commit.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import type { Realm, User, UserGroup } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { activeUserIds } from "../db/queries/users.js";
import {
  activeUsersByIds,
  deleteAnonymousGroup,
  deleteGroupMembers,
  deleteSubgroups,
  directMemberIds,
  directSubgroupIds,
  findUserGroup,
  groupIdsContainingUser,
  insertGroupMembers,
  insertSubgroups,
  insertUserGroup,
  namedGroupByName,
  namedGroupIdsWithDirectMember,
  namedGroupsByIds,
  recursiveSubgroupIds,
  setGroupContents,
  systemGroupIds,
  updateUserGroupRow,
} from "../db/queries/user-groups.js";
import { groupSettingValue, toApiUserGroup, type GroupSettingValue } from "../api-records/user-group.js";
import { loadRealmGroupData } from "../lib/user-group-data.js";
import {
  GROUP_PERMISSION_SETTINGS,
  GROUP_SETTING_CONFIG,
  checkSystemGroupRules,
  checkUserGroupName,
  groupDeactivated,
  groupExists,
  insufficientPermission,
  invalidUserGroup,
  mayUpdateGroup,
  normalizeGroupSetting,
  sameGroupSetting,
  settingColumn,
  type GroupPermissionSetting,
  systemGroupRequired,
  type GroupSettingInput,
  type SystemGroupRules,
} from "../lib/user-groups.js";
import { silentMention } from "../lib/notification-bot.js";
import { sendEventOnCommit } from "../events/send.js";
import type { ChatEvent, EventInternalData } from "../events/types.js";
import { internalSendMessage, type InternalMessage } from "./internal-messages.js";
import { groupInUseObjections } from "../lib/user-group-objections.js";

/** Upstream user_ids_to_users(allow_deactivated=False): the first unknown or deactivated id fails. */
async function activeUsersOrFail(tx: Tx, realm: Realm, ids: readonly number[]): Promise<User[]> {
  const users = (await activeUsersByIds(tx, realm.id, ids)).filter((u) => u.id !== realm.notification_bot_id);
  const found = new Set(users.map((u) => u.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw new ApiError(`Invalid user ID: ${missing}`);
  return users;
}

/** Named groups of the realm for use as subgroups: unknown ids and deactivated groups fail. */
async function potentialSubgroups(tx: Tx, realmId: number, ids: readonly number[]): Promise<UserGroup[]> {
  const groups = await namedGroupsByIds(tx, realmId, ids);
  const found = new Set(groups.map((g) => g.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw new ApiError(`Invalid user group ID: ${missing}`);
  if (groups.some((g) => g.deactivated === 1)) throw groupDeactivated();
  return groups;
}

/** A validated group-setting value: a named group, or the contents of an anonymous one. */
type ResolvedSetting = { kind: "named"; id: number } | { kind: "anonymous"; members: number[]; subgroups: number[] };

/** Upstream access_user_group_api_value_for_setting (after parse_group_setting_value). */
async function resolveSetting(tx: Tx, realm: Realm, setting: string, rules: SystemGroupRules, raw: GroupSettingInput, nobodyId: number): Promise<ResolvedSetting> {
  const value = normalizeGroupSetting(raw, nobodyId);
  if (typeof value === "number") {
    const group = await findUserGroup(tx, realm.id, value);
    if (!group || group.name === null) throw invalidUserGroup();
    if (group.deactivated === 1) throw groupDeactivated();
    checkSystemGroupRules(setting, rules, group);
    return { kind: "named", id: group.id };
  }
  if (rules.requireSystemGroup) throw systemGroupRequired(setting);
  const members = [...new Set((await activeUsersOrFail(tx, realm, value.direct_members)).map((u) => u.id))];
  const subgroups = (await potentialSubgroups(tx, realm.id, value.direct_subgroups)).map((g) => g.id);
  return { kind: "anonymous", members, subgroups };
}

/** Stores a resolved value: a named group's id, or an anonymous group (reused when `reuse` is one). */
async function storeSetting(tx: Tx, ctx: AppContext, realmId: number, value: ResolvedSetting, reuse: UserGroup | undefined): Promise<number> {
  if (value.kind === "named") return value.id;
  const id = reuse && reuse.name === null ? reuse.id : await insertUserGroup(tx, { realm_id: realmId, name: null, date_created: nowSeconds(ctx) });
  await setGroupContents(tx, realmId, id, value.members, value.subgroups);
  return id;
}

function publish(tx: Tx, ctx: AppContext, realmId: number, audience: readonly number[], event: ChatEvent, onlyFor?: EventInternalData["include_deactivated_groups"]): void {
  const e = onlyFor === undefined ? event : { ...event, internal_data: { include_deactivated_groups: onlyFor } satisfies EventInternalData };
  sendEventOnCommit(tx, ctx, realmId, e, audience);
}

async function sendAddEvent(tx: Tx, ctx: AppContext, realmId: number, groupId: number, onlyFor?: boolean): Promise<void> {
  const data = await loadRealmGroupData(tx, realmId);
  publish(tx, ctx, realmId, await activeUserIds(tx, realmId), { type: "user_group", op: "add", group: toApiUserGroup(data.byId.get(groupId)!, data) }, onlyFor);
}

export interface CreateUserGroupInput {
  name: string;
  description: string;
  members: number[];
  subgroups: number[] | undefined;
  settings: Partial<Record<GroupPermissionSetting, GroupSettingInput>>;
}

/** POST /user_groups/create, after the view's caller checks. Returns the new group's id. */
export async function doCreateUserGroup(ctx: AppContext, realm: Realm, actor: User, input: CreateUserGroupInput): Promise<number> {
  return withTransaction(ctx.db, async (tx) => {
    const members = await activeUsersOrFail(tx, realm, input.members);
    const name = checkUserGroupName(input.name);
    const system = await systemGroupIds(tx, realm.id);
    const nobodyId = system.get("role:nobody")!;
    const resolved = new Map<GroupPermissionSetting, ResolvedSetting>();
    for (const setting of GROUP_PERMISSION_SETTINGS) {
      const raw = input.settings[setting];
      if (raw !== undefined) resolved.set(setting, await resolveSetting(tx, realm, setting, GROUP_SETTING_CONFIG[setting], raw, nobodyId));
    }
    if (await namedGroupByName(tx, realm.id, name)) throw groupExists(name);
    const now = nowSeconds(ctx);
    const groupId = await insertUserGroup(tx, { realm_id: realm.id, name, description: input.description, date_created: now, creator_id: actor.id });
    const columns: Record<string, number> = {};
    for (const setting of GROUP_PERMISSION_SETTINGS) {
      const given = resolved.get(setting);
      const fallback = GROUP_SETTING_CONFIG[setting].defaultGroup;
      const value: ResolvedSetting = given ?? (fallback === "creator" ? { kind: "anonymous", members: [actor.id], subgroups: [] } : { kind: "named", id: system.get(fallback)! });
      columns[settingColumn(setting)] = await storeSetting(tx, ctx, realm.id, value, undefined);
    }
    await updateUserGroupRow(tx, realm.id, groupId, columns);
    await insertGroupMembers(tx, realm.id, groupId, members.map((u) => u.id));
    await sendAddEvent(tx, ctx, realm.id, groupId);
    // Initial subgroups need no permission on the new group (upstream creating_group).
    if (input.subgroups !== undefined && input.subgroups.length > 0) {
      const subgroups = await potentialSubgroups(tx, realm.id, input.subgroups);
      const ids = subgroups.map((g) => g.id);
      await insertSubgroups(tx, realm.id, groupId, ids);
      publish(tx, ctx, realm.id, await activeUserIds(tx, realm.id), { type: "user_group", op: "add_subgroups", group_id: groupId, direct_subgroup_ids: ids });
    }
    return groupId;
  });
}

/**
 * Upstream access_user_group_for_update: the named group (deactivated ones only when
 * allowed), never a system group, and the acting user's permission (read afresh: an
 * earlier part of the same request may have changed the user's groups).
 */
async function accessGroupForUpdate(
  tx: Tx,
  realm: Realm,
  actor: User,
  groupId: number,
  permission: GroupPermissionSetting | readonly GroupPermissionSetting[],
  opts: { allowDeactivated: boolean },
): Promise<UserGroup> {
  const group = await findUserGroup(tx, realm.id, groupId);
  if (!group || group.name === null) throw invalidUserGroup();
  if (group.deactivated === 1 && !opts.allowDeactivated) throw groupDeactivated();
  const containing = await groupIdsContainingUser(tx, realm.id, actor.id);
  const permissions = typeof permission === "string" ? [permission] : permission;
  if (!permissions.some((p) => mayUpdateGroup(actor, realm, group, p, containing))) throw insufficientPermission();
  return group;
}

export interface GroupMembershipChange {
  add?: number[];
  delete?: number[];
  addSubgroups?: number[];
  deleteSubgroups?: number[];
}

function membershipNotice(actor: User, users: readonly User[], group: UserGroup, verb: "added you to" | "removed you from"): InternalMessage[] {
  // Not to the acting user, not to bots (upstream notify_for_user_group_subscription_changes).
  return users
    .filter((u) => u.id !== actor.id && !u.is_bot)
    .map((u) => ({ to: { users: [u] }, content: `${silentMention(actor)} ${verb} the group @_*${group.name}*.` }));
}

/**
 * POST /user_groups/{id}/members and /subgroups: the parts run in upstream's order
 * (add, delete, add subgroups, delete subgroups) in one transaction; the notification
 * bot's messages go out once everything committed.
 */
export async function doUpdateGroupMembership(ctx: AppContext, realm: Realm, actor: User, groupId: number, change: GroupMembershipChange): Promise<void> {
  const notices = await withTransaction(ctx.db, async (tx) => {
    const out: InternalMessage[] = [];
    const audience = await activeUserIds(tx, realm.id);
    const self = (ids: readonly number[]) => ids.length === 1 && ids[0] === actor.id;
    if (change.add?.length) {
      const permission = self(change.add) ? (["can_join_group", "can_add_members_group"] as const) : "can_add_members_group";
      const group = await accessGroupForUpdate(tx, realm, actor, groupId, permission, { allowDeactivated: true });
      const users = await activeUsersOrFail(tx, realm, change.add);
      const existing = new Set(await directMemberIds(tx, realm.id, groupId, { activeOnly: false }));
      const already = users.find((u) => existing.has(u.id));
      if (already) throw new ApiError(`User ${already.id} is already a member of this group`);
      const ids = users.map((u) => u.id);
      await insertGroupMembers(tx, realm.id, groupId, ids);
      publish(tx, ctx, realm.id, audience, { type: "user_group", op: "add_members", group_id: groupId, user_ids: ids });
      out.push(...membershipNotice(actor, users, group, "added you to"));
    }
    if (change.delete?.length) {
      const users = await activeUsersOrFail(tx, realm, change.delete);
      const permission = self(change.delete) ? (["can_leave_group", "can_remove_members_group"] as const) : "can_remove_members_group";
      const group = await accessGroupForUpdate(tx, realm, actor, groupId, permission, { allowDeactivated: true });
      const current = new Set(await directMemberIds(tx, realm.id, groupId, { activeOnly: true }));
      const absent = change.delete.find((id) => !current.has(id));
      if (absent !== undefined) throw new ApiError(`There is no member '${absent}' in this user group`);
      const ids = users.map((u) => u.id);
      await deleteGroupMembers(tx, realm.id, groupId, ids);
      publish(tx, ctx, realm.id, audience, { type: "user_group", op: "remove_members", group_id: groupId, user_ids: ids });
      out.push(...membershipNotice(actor, users, group, "removed you from"));
    }
    if (change.addSubgroups?.length) {
      const below = await recursiveSubgroupIds(tx, realm.id, change.addSubgroups);
      await accessGroupForUpdate(tx, realm, actor, groupId, "can_add_members_group", { allowDeactivated: true });
      const subgroups = await potentialSubgroups(tx, realm.id, change.addSubgroups);
      const existing = new Set(await directSubgroupIds(tx, realm.id, groupId));
      const already = subgroups.find((g) => existing.has(g.id));
      if (already) throw new ApiError(`User group ${already.id} is already a subgroup of this group.`);
      if ([...below.values()].some((set) => set.has(groupId))) {
        throw new ApiError(`User group ${groupId} is already a subgroup of one of the passed subgroups.`);
      }
      const ids = subgroups.map((g) => g.id);
      await insertSubgroups(tx, realm.id, groupId, ids);
      publish(tx, ctx, realm.id, audience, { type: "user_group", op: "add_subgroups", group_id: groupId, direct_subgroup_ids: ids });
    }
    if (change.deleteSubgroups?.length) {
      await accessGroupForUpdate(tx, realm, actor, groupId, "can_manage_group", { allowDeactivated: true });
      const subgroups = await potentialSubgroups(tx, realm.id, change.deleteSubgroups);
      const existing = new Set(await directSubgroupIds(tx, realm.id, groupId));
      const absent = subgroups.find((g) => !existing.has(g.id));
      if (absent) throw new ApiError(`User group ${absent.id} is not a subgroup of this group.`);
      const ids = subgroups.map((g) => g.id);
      await deleteSubgroups(tx, realm.id, groupId, ids);
      publish(tx, ctx, realm.id, audience, { type: "user_group", op: "remove_subgroups", group_id: groupId, direct_subgroup_ids: ids });
    }
    return out;
  });
  for (const notice of notices) await internalSendMessage(ctx, realm, notice);
}

export interface GroupSettingChange {
  new: GroupSettingInput;
  old?: GroupSettingInput;
}

export interface UpdateUserGroupInput {
  name?: string;
  description?: string;
  deactivated?: boolean;
  settings: Partial<Record<GroupPermissionSetting, GroupSettingChange>>;
}

/** Upstream PreviousSettingValueMismatchedError. */
const oldValueMismatch = () => new ApiError("'old' value does not match the expected value.", { code: "EXPECTATION_MISMATCH" });

/** PATCH /user_groups/{id}: name, description, reactivation, then each setting, in upstream's order. */
export async function doUpdateUserGroup(ctx: AppContext, realm: Realm, actor: User, groupId: number, input: UpdateUserGroupInput): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const group = await accessGroupForUpdate(tx, realm, actor, groupId, "can_manage_group", { allowDeactivated: true });
    const audience = await activeUserIds(tx, realm.id);
    const update = (data: Record<string, unknown>, onlyFor?: boolean) =>
      publish(tx, ctx, realm.id, audience, { type: "user_group", op: "update", group_id: groupId, data }, onlyFor);
    if (input.name !== undefined && input.name !== group.name) {
      const name = checkUserGroupName(input.name);
      if (await namedGroupByName(tx, realm.id, name)) throw groupExists(name);
      await updateUserGroupRow(tx, realm.id, groupId, { name });
      // Clients that do not know deactivated groups never hear of a deactivated one's name.
      update({ name }, group.deactivated === 1 ? true : undefined);
    }
    if (input.description !== undefined && input.description !== group.description) {
      await updateUserGroupRow(tx, realm.id, groupId, { description: input.description });
      update({ description: input.description });
    }
    if (input.deactivated === false && group.deactivated === 1) {
      await updateUserGroupRow(tx, realm.id, groupId, { deactivated: 0 });
      update({ deactivated: false }, true);
      await sendAddEvent(tx, ctx, realm.id, groupId, false);
    }
    const nobodyId = (await systemGroupIds(tx, realm.id)).get("role:nobody")!;
    for (const setting of GROUP_PERMISSION_SETTINGS) {
      const change = input.settings[setting];
      if (change === undefined) continue;
      const currentId = (await loadRealmGroupData(tx, realm.id)).byId.get(groupId)![settingColumn(setting)];
      const value = await changeGroupSettingValue(tx, ctx, realm, { name: setting, rules: GROUP_SETTING_CONFIG[setting], currentId, change, nobodyId }, (id) =>
        updateUserGroupRow(tx, realm.id, groupId, { [settingColumn(setting)]: id }),
      );
      if (value !== undefined) update({ [setting]: value });
    }
  });
}

export interface GroupSettingValueChange {
  name: string;
  rules: SystemGroupRules;
  /** The group the setting holds now (null only for unset legacy rows). */
  currentId: number | null;
  change: GroupSettingChange;
  nobodyId: number;
}

/**
 * One group-valued setting's change (a group's or the realm's): the `old` check, a no-op
 * when the value is the same, the new value resolved and stored (an anonymous value
 * reuses the current anonymous group), `assign` storing the new id, and the replaced
 * anonymous group removed. Returns the new API value, or undefined when unchanged.
 */
export async function changeGroupSettingValue(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  c: GroupSettingValueChange,
  assign: (groupId: number) => Promise<unknown>,
): Promise<GroupSettingValue | undefined> {
  const data = await loadRealmGroupData(tx, realm.id);
  const current = groupSettingValue(c.currentId, data) as GroupSettingValue;
  const wanted = normalizeGroupSetting(c.change.new, c.nobodyId);
  if (c.change.old !== undefined && !sameGroupSetting(normalizeGroupSetting(c.change.old, c.nobodyId), current)) throw oldValueMismatch();
  if (sameGroupSetting(current, wanted)) return undefined;
  const resolved = await resolveSetting(tx, realm, c.name, c.rules, wanted, c.nobodyId);
  const previous = c.currentId === null ? undefined : data.byId.get(c.currentId);
  const newId = await storeSetting(tx, ctx, realm.id, resolved, previous);
  await assign(newId);
  // An anonymous value replaced by a named group is used nowhere else.
  if (previous && previous.name === null && previous.id !== newId) await deleteAnonymousGroup(tx, realm.id, previous.id);
  return groupSettingValue(newId, await loadRealmGroupData(tx, realm.id)) as GroupSettingValue;
}

/** POST /user_groups/{id}/deactivate: refused while the group is in use (upstream's objections). */
export async function doDeactivateUserGroup(ctx: AppContext, realm: Realm, actor: User, groupId: number): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const group = await accessGroupForUpdate(tx, realm, actor, groupId, "can_manage_group", { allowDeactivated: false });
    const objections = await groupInUseObjections(tx, realm, group.id);
    if (objections.length > 0) {
      throw new ApiError("Cannot deactivate user group in use.", { code: "CANNOT_DEACTIVATE_GROUP_IN_USE", data: { objections } });
    }
    await updateUserGroupRow(tx, realm.id, groupId, { deactivated: 1 });
    const audience = await activeUserIds(tx, realm.id);
    publish(tx, ctx, realm.id, audience, { type: "user_group", op: "update", group_id: groupId, data: { deactivated: true } }, true);
    publish(tx, ctx, realm.id, audience, { type: "user_group", op: "remove", group_id: groupId }, false);
  });
}

/**
 * A reactivated user shows again in the named groups they belong to: `add_members` for
 * each (upstream, since feature level 303), in the reactivating transaction.
 */
export async function sendGroupMembershipsOnReactivation(tx: Tx, ctx: AppContext, realmId: number, userId: number): Promise<void> {
  const groups = await namedGroupIdsWithDirectMember(tx, realmId, userId);
  if (groups.length === 0) return;
  const audience = await activeUserIds(tx, realmId);
  for (const groupId of groups) publish(tx, ctx, realmId, audience, { type: "user_group", op: "add_members", group_id: groupId, user_ids: [userId] });
}
