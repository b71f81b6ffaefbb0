/**
 * The user-group record of GET /user_groups, realm_user_groups in /register and
 * `user_group` add events, and group-setting values (a named group's id, or an
 * anonymous group's {direct_members, direct_subgroups}). Pure: rows in, records out.
 */
import type { UserGroup } from "../db/schema.js";
import { GROUP_PERMISSION_SETTINGS, settingColumn } from "../lib/user-groups.js";

export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** A realm's groups with their direct members and subgroups, sorted by id. */
export interface RealmGroupData {
  groups: UserGroup[];
  byId: Map<number, UserGroup>;
  members: Map<number, number[]>;
  subgroups: Map<number, number[]>;
}

export function realmGroupDataFrom(
  groups: UserGroup[],
  memberRows: ReadonlyArray<{ group_id: number; user_id: number }>,
  edgeRows: ReadonlyArray<{ supergroup_id: number; subgroup_id: number }>,
): RealmGroupData {
  const members = new Map<number, number[]>();
  for (const m of memberRows) appendTo(members, m.group_id, m.user_id);
  const subgroups = new Map<number, number[]>();
  for (const e of edgeRows) appendTo(subgroups, e.supergroup_id, e.subgroup_id);
  for (const list of [...members.values(), ...subgroups.values()]) list.sort((a, b) => a - b);
  return { groups, byId: new Map(groups.map((g) => [g.id, g])), members, subgroups };
}

/** Appends in place: copying the list per row was quadratic in a group's size (10k-member system groups). */
function appendTo(lists: Map<number, number[]>, key: number, id: number): void {
  const list = lists.get(key);
  if (list) list.push(id);
  else lists.set(key, [id]);
}

/** A setting's value for the API: a named group by id, an anonymous group by its contents. */
export function groupSettingValue(groupId: number | null, data: RealmGroupData): GroupSettingValue | null {
  if (groupId === null) return null;
  const group = data.byId.get(groupId);
  if (!group || group.name !== null) return groupId;
  return { direct_members: [...(data.members.get(groupId) ?? [])], direct_subgroups: [...(data.subgroups.get(groupId) ?? [])] };
}

export function toApiUserGroup(g: UserGroup, data: RealmGroupData): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id: g.id,
    name: g.name,
    description: g.description,
    members: [...(data.members.get(g.id) ?? [])],
    direct_subgroup_ids: [...(data.subgroups.get(g.id) ?? [])],
    is_system_group: g.is_system_group === 1,
    creator_id: g.creator_id,
    date_created: g.date_created,
    deactivated: g.deactivated === 1,
  };
  for (const setting of GROUP_PERMISSION_SETTINGS) record[setting] = groupSettingValue(g[settingColumn(setting)], data);
  return record;
}

/** The realm's named groups as records (deactivated ones only when asked), by id. */
export function toApiUserGroups(data: RealmGroupData, includeDeactivated: boolean): Array<Record<string, unknown>> {
  return data.groups.filter((g) => g.name !== null && (includeDeactivated || g.deactivated !== 1)).map((g) => toApiUserGroup(g, data));
}
