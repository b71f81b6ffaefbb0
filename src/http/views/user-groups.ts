/**
 * User groups (spec 4.10, 4.15 and upstream's other group endpoints): parameters in
 * upstream's order, the caller checks of its decorators, then the actions.
 */
import {
  doCreateUserGroup,
  doDeactivateUserGroup,
  doUpdateGroupMembership,
  doUpdateUserGroup,
  type GroupSettingChange,
} from "../../actions/user-groups.js";
import { toApiUserGroups } from "../../api-records/user-group.js";
import { ApiError } from "../../errors.js";
import {
  directMemberIds,
  directSubgroupIds,
  findUserGroup,
  groupIdsContainingUser,
  groupMemberIdsRecursive,
  isStorableId,
  recursiveSubgroupIds,
} from "../../db/queries/user-groups.js";
import type { UserGroup } from "../../db/schema.js";
import { loadRealmGroupData } from "../../lib/user-group-data.js";
import { canCreateGroups, GROUP_PERMISSION_SETTINGS, groupDeactivated, insufficientPermission, invalidUserGroup, type GroupPermissionSetting, type GroupSettingInput } from "../../lib/user-groups.js";
import { accessUserById } from "../../lib/users.js";
import { isGuest } from "../../lib/roles.js";
import { p, v, type Param, type Validator } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** Upstream require_member_or_admin. */
function requireMemberOrAdmin(req: AuthedRequest): void {
  if (isGuest(req.user)) throw new ApiError("Not allowed for guest users");
  if (req.user.is_bot) throw new ApiError("This endpoint does not accept bot requests.");
}

const groupSettingValue: Validator<GroupSettingInput> = v.oneOfTypes(
  v.int(),
  v.dict({ direct_members: v.list(v.int()), direct_subgroups: v.list(v.int()) }),
);

export const groupSettingChange: Validator<GroupSettingChange> = v.dict({ new: groupSettingValue, old: v.optional(groupSettingValue) });

function settingParams<T>(validator: Validator<T>): Record<GroupPermissionSetting, Param<T | undefined>> {
  return Object.fromEntries(GROUP_PERMISSION_SETTINGS.map((s) => [s, p.json(validator).optional()])) as Record<GroupPermissionSetting, Param<T | undefined>>;
}

function pickSettings<T>(parsed: Partial<Record<GroupPermissionSetting, T | undefined>>): Partial<Record<GroupPermissionSetting, T>> {
  const out: Partial<Record<GroupPermissionSetting, T>> = {};
  for (const s of GROUP_PERMISSION_SETTINGS) if (parsed[s] !== undefined) out[s] = parsed[s];
  return out;
}

/** POST /api/v1/user_groups/create */
async function create(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const containing = await groupIdsContainingUser(req.ctx.db, req.realm.id, req.user.id);
  if (!canCreateGroups(req.user, req.realm, containing)) throw insufficientPermission();
  const params = parseParams(req, {
    ...settingParams(groupSettingValue),
    description: p.str(),
    members: p.intList(),
    name: p.str(),
    subgroups: p.intList().optional(),
  });
  const groupId = await doCreateUserGroup(req.ctx, req.realm, req.user, {
    name: params.name,
    description: params.description,
    members: params.members,
    subgroups: params.subgroups,
    settings: pickSettings(params),
  });
  return { group_id: groupId };
}

/** GET /api/v1/user_groups */
async function list(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const { include_deactivated_groups } = parseParams(req, { include_deactivated_groups: p.bool().default(false) });
  return { user_groups: toApiUserGroups(await loadRealmGroupData(req.ctx.db, req.realm.id), include_deactivated_groups) };
}

/** PATCH /api/v1/user_groups/{user_group_id} */
async function update(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const params = parseParams(req, {
    ...settingParams(groupSettingChange),
    deactivated: p.bool().optional(),
    description: p.str().optional(),
    name: p.str().optional(),
  });
  const settings = pickSettings(params);
  if (params.name === undefined && params.description === undefined && params.deactivated === undefined && Object.keys(settings).length === 0) {
    throw new ApiError("No new data supplied");
  }
  await doUpdateUserGroup(req.ctx, req.realm, req.user, pathInt(req, "user_group_id"), {
    name: params.name,
    description: params.description,
    deactivated: params.deactivated,
    settings,
  });
  return {};
}

/** POST /api/v1/user_groups/{user_group_id}/deactivate (no member-or-admin guard upstream). */
async function deactivate(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  await doDeactivateUserGroup(req.ctx, req.realm, req.user, pathInt(req, "user_group_id"));
  return {};
}

/** POST /api/v1/user_groups/{user_group_id}/members (spec 4.15) */
async function updateMembers(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const params = parseParams(req, {
    add: p.intList().optional(),
    add_subgroups: p.intList().optional(),
    delete: p.intList().optional(),
    delete_subgroups: p.intList().optional(),
  });
  if (!params.add?.length && !params.delete?.length && !params.add_subgroups?.length && !params.delete_subgroups?.length) {
    throw new ApiError('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
  }
  await doUpdateGroupMembership(req.ctx, req.realm, req.user, pathInt(req, "user_group_id"), {
    add: params.add,
    delete: params.delete,
    addSubgroups: params.add_subgroups,
    deleteSubgroups: params.delete_subgroups,
  });
  return {};
}

/** POST /api/v1/user_groups/{user_group_id}/subgroups */
async function updateSubgroups(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const params = parseParams(req, { add: p.intList().optional(), delete: p.intList().optional() });
  if (!params.add?.length && !params.delete?.length) throw new ApiError('Nothing to do. Specify at least one of "add" or "delete".');
  await doUpdateGroupMembership(req.ctx, req.realm, req.user, pathInt(req, "user_group_id"), {
    addSubgroups: params.add,
    deleteSubgroups: params.delete,
  });
  return {};
}

/** Upstream access_user_group_to_read_membership: a named, active group of the realm. */
async function groupToRead(req: AuthedRequest): Promise<UserGroup> {
  const group = await findUserGroup(req.ctx.db, req.realm.id, pathInt(req, "user_group_id"));
  if (!group || group.name === null) throw invalidUserGroup();
  if (group.deactivated === 1) throw groupDeactivated();
  return group;
}

/** GET /api/v1/user_groups/{user_group_id}/members */
async function members(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const { direct_member_only } = parseParams(req, { direct_member_only: p.bool().default(false) });
  const group = await groupToRead(req);
  if (direct_member_only) return { members: await directMemberIds(req.ctx.db, req.realm.id, group.id, { activeOnly: true }) };
  const all = (await groupMemberIdsRecursive(req.ctx.db, req.realm.id, [group.id])).get(group.id) ?? new Set<number>();
  return { members: [...all].sort((a, b) => a - b) };
}

/** GET /api/v1/user_groups/{user_group_id}/members/{user_id} */
async function isMember(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const { direct_member_only } = parseParams(req, { direct_member_only: p.bool().default(false) });
  const group = await groupToRead(req);
  const userId = pathInt(req, "user_id");
  if (!isStorableId(userId)) throw new ApiError("No such user");
  const target = await accessUserById(req.ctx.db, req.user, userId, { forAdmin: false });
  const ids = direct_member_only
    ? new Set(await directMemberIds(req.ctx.db, req.realm.id, group.id, { activeOnly: true }))
    : ((await groupMemberIdsRecursive(req.ctx.db, req.realm.id, [group.id])).get(group.id) ?? new Set<number>());
  return { is_user_group_member: ids.has(target.id) };
}

/** GET /api/v1/user_groups/{user_group_id}/subgroups */
async function subgroups(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const { direct_subgroup_only } = parseParams(req, { direct_subgroup_only: p.bool().default(false) });
  const group = await groupToRead(req);
  if (direct_subgroup_only) return { subgroups: await directSubgroupIds(req.ctx.db, req.realm.id, group.id) };
  const below = (await recursiveSubgroupIds(req.ctx.db, req.realm.id, [group.id])).get(group.id) ?? new Set<number>();
  return { subgroups: [...below].filter((id) => id !== group.id).sort((a, b) => a - b) };
}

export const routes = [
  route("POST", "/user_groups/create", create),
  route("GET", "/user_groups", list),
  route("PATCH", "/user_groups/{user_group_id:int}", update),
  route("POST", "/user_groups/{user_group_id:int}/deactivate", deactivate),
  route("GET", "/user_groups/{user_group_id:int}/members", members),
  route("POST", "/user_groups/{user_group_id:int}/members", updateMembers),
  route("GET", "/user_groups/{user_group_id:int}/members/{user_id:int}", isMember),
  route("GET", "/user_groups/{user_group_id:int}/subgroups", subgroups),
  route("POST", "/user_groups/{user_group_id:int}/subgroups", updateSubgroups),
];
