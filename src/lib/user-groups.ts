/**
 * Rules of user groups (upstream zerver/lib/user_groups.py): names, the six permission
 * settings with their defaults and the system groups they refuse, and who may do what
 * to a group. Pure: callers pass the set of groups containing the acting user, read in
 * one recursive query (db/queries/user-groups.ts groupIdsContainingUser).
 */
import { ApiError } from "../errors.js";
import type { Realm, User, UserGroup } from "../db/schema.js";
import { isGuest } from "./roles.js";
import type { SystemGroupName } from "./system-groups.js";

export const MAX_GROUP_NAME_LENGTH = 100;
const INVALID_NAME_PREFIXES = ["@", "role:", "user:", "stream:", "channel:"];

/** The six permission settings every named group has, in upstream's order. */
export const GROUP_PERMISSION_SETTINGS = [
  "can_add_members_group",
  "can_join_group",
  "can_leave_group",
  "can_manage_group",
  "can_mention_group",
  "can_remove_members_group",
] as const;
export type GroupPermissionSetting = (typeof GROUP_PERMISSION_SETTINGS)[number];

export const settingColumn = (s: GroupPermissionSetting) => `${s}_id` as const;

/** Which groups a group-valued setting (a group's or the realm's) accepts: upstream GroupPermissionSetting. */
export interface SystemGroupRules {
  /** role:everyone may hold the permission (guests then too). */
  allowEveryone: boolean;
  /** role:owners may hold it. */
  allowOwners: boolean;
  /** role:nobody may hold it (default yes). */
  allowNobody?: boolean;
  /** Only a system group, never a user-defined or anonymous one. */
  requireSystemGroup?: boolean;
  /** When set, the only system groups allowed. */
  allowedSystemGroups?: readonly SystemGroupName[];
}

interface SettingConfig extends SystemGroupRules {
  /** Default of a new group: a system group, or an anonymous group of the creator. */
  defaultGroup: SystemGroupName | "creator";
}

/**
 * Upstream's configuration. The spec (2.9) also refuses role:owners for
 * can_mention_group (upstream's rule before feature level 326); the spec wins.
 */
export const GROUP_SETTING_CONFIG: Record<GroupPermissionSetting, SettingConfig> = {
  can_add_members_group: { allowEveryone: false, allowOwners: true, defaultGroup: "creator" },
  can_join_group: { allowEveryone: false, allowOwners: true, defaultGroup: "role:nobody" },
  can_leave_group: { allowEveryone: true, allowOwners: true, defaultGroup: "role:everyone" },
  can_manage_group: { allowEveryone: false, allowOwners: true, defaultGroup: "creator" },
  can_mention_group: { allowEveryone: true, allowOwners: false, defaultGroup: "role:everyone" },
  can_remove_members_group: { allowEveryone: false, allowOwners: true, defaultGroup: "role:nobody" },
};

export const insufficientPermission = () => new ApiError("Insufficient permission");
export const invalidUserGroup = () => new ApiError("Invalid user group");
export const groupDeactivated = () => new ApiError("User group is deactivated.");

/** Upstream check_user_group_name. */
export function checkUserGroupName(name: string): string {
  if (name.trim() === "") throw new ApiError("User group name can't be empty!");
  if ([...name].length > MAX_GROUP_NAME_LENGTH) throw new ApiError(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  const prefix = INVALID_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw new ApiError(`User group name cannot start with '${prefix}'.`);
  return name;
}

export const groupExists = (name: string) => new ApiError(`User group '${name}' already exists.`);

export const systemGroupRequired = (setting: string) => new ApiError(`'${setting}' must be a system user group.`);

/** Upstream check_setting_configuration_for_system_groups: the groups a setting may not be set to, in its order. */
export function checkSystemGroupRules(setting: string, rules: SystemGroupRules, group: Pick<UserGroup, "name" | "is_system_group">): void {
  if (rules.requireSystemGroup && group.is_system_group !== 1) throw systemGroupRequired(setting);
  if (group.is_system_group !== 1) return;
  const refuse = (name: string) => new ApiError(`'${setting}' setting cannot be set to '${name}' group.`);
  if (group.name === "role:internet") throw refuse("role:internet");
  if (group.name === "role:nobody" && rules.allowNobody === false) throw refuse("role:nobody");
  if (group.name === "role:owners" && !rules.allowOwners) throw refuse("role:owners");
  if (group.name === "role:everyone" && !rules.allowEveryone) throw refuse("role:everyone");
  if (rules.allowedSystemGroups && !rules.allowedSystemGroups.includes(group.name as SystemGroupName)) throw refuse(group.name!);
}

/** The system groups a group's setting may not be set to. */
export function checkSettingSystemGroup(setting: GroupPermissionSetting, group: Pick<UserGroup, "name" | "is_system_group">): void {
  checkSystemGroupRules(setting, GROUP_SETTING_CONFIG[setting], group);
}

/** A group-setting value as sent: a group id, or the contents of an anonymous group. */
export type GroupSettingInput = number | { direct_members: number[]; direct_subgroups: number[] };

/**
 * Upstream parse_group_setting_value: an anonymous value with one subgroup and no
 * members is that group; an empty one is role:nobody.
 */
export function normalizeGroupSetting(value: GroupSettingInput, nobodyId: number): GroupSettingInput {
  if (typeof value === "number") return value;
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0];
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 0) return nobodyId;
  return value;
}

/** Whether two setting values are the same set (order and duplicates do not matter). */
export function sameGroupSetting(a: GroupSettingInput, b: GroupSettingInput): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  const same = (x: number[], y: number[]) => new Set(x).size === new Set(y).size && x.every((id) => y.includes(id));
  return same(a.direct_members, b.direct_members) && same(a.direct_subgroups, b.direct_subgroups);
}

/**
 * Upstream user_has_permission_for_group_setting: membership (nested) in the setting's
 * group; guests never hold a permission whose setting refuses role:everyone.
 */
export function holdsSetting(user: Pick<User, "role">, groupId: number | null, allowEveryone: boolean, containing: ReadonlySet<number>): boolean {
  if (groupId === null) return false;
  if (!allowEveryone && isGuest(user)) return false;
  return containing.has(groupId);
}

/** The organization's can_manage_all_groups (role:everyone is never allowed there). */
export function canManageAllGroups(user: Pick<User, "role">, realm: Pick<Realm, "can_manage_all_groups_group_id">, containing: ReadonlySet<number>): boolean {
  return holdsSetting(user, realm.can_manage_all_groups_group_id, false, containing);
}

/** The organization's can_create_groups. */
export function canCreateGroups(user: Pick<User, "role">, realm: Pick<Realm, "can_create_groups_group_id">, containing: ReadonlySet<number>): boolean {
  return holdsSetting(user, realm.can_create_groups_group_id, false, containing);
}

/**
 * Upstream access_user_group_for_update, after the lookup: system groups are never
 * changed here; managers (the group's can_manage_group, or the organization's
 * can_manage_all_groups) may do everything; otherwise the named permission decides.
 */
export function mayUpdateGroup(
  user: Pick<User, "role">,
  realm: Pick<Realm, "can_manage_all_groups_group_id">,
  group: UserGroup,
  permission: GroupPermissionSetting,
  containing: ReadonlySet<number>,
): boolean {
  if (group.is_system_group === 1) return false;
  if (canManageAllGroups(user, realm, containing)) return true;
  if (holdsSetting(user, group.can_manage_group_id, false, containing)) return true;
  if (permission === "can_manage_group") return false;
  return holdsSetting(user, group[settingColumn(permission)], GROUP_SETTING_CONFIG[permission].allowEveryone, containing);
}
