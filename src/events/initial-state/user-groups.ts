/**
 * realm_user_groups (event type "realm_user_groups"): the realm's named groups, system
 * groups included, with direct members, direct subgroups and their six permission
 * settings as group-setting values (a named group's id, or an anonymous group's
 * {direct_members, direct_subgroups}). Three queries, shared with the realm settings.
 */
import { listRealmGroupMembers, listRealmGroupSubgroups, listRealmUserGroups } from "../../db/queries/initial-state.js";
import type { UserGroup } from "../../db/schema.js";
import type { StateContext, StateFetcher } from "./types.js";

export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

export interface RealmGroupData {
  groups: UserGroup[];
  byId: Map<number, UserGroup>;
  members: Map<number, number[]>;
  subgroups: Map<number, number[]>;
}

/** The six permission settings every named group has, in upstream's order. */
export const GROUP_PERMISSION_SETTINGS = [
  "can_add_members_group",
  "can_join_group",
  "can_leave_group",
  "can_manage_group",
  "can_mention_group",
  "can_remove_members_group",
] as const;

const loaded = new WeakMap<StateContext, Promise<RealmGroupData>>();

/** The realm's groups, loaded once per /register. */
export function realmGroupData(sc: StateContext): Promise<RealmGroupData> {
  let data = loaded.get(sc);
  if (!data) {
    data = load(sc);
    loaded.set(sc, data);
  }
  return data;
}

async function load(sc: StateContext): Promise<RealmGroupData> {
  const { db } = sc.ctx;
  const groups = await listRealmUserGroups(db, sc.realm.id);
  const members = new Map<number, number[]>();
  for (const m of await listRealmGroupMembers(db, sc.realm.id)) members.set(m.group_id, [...(members.get(m.group_id) ?? []), m.user_id]);
  const subgroups = new Map<number, number[]>();
  for (const e of await listRealmGroupSubgroups(db, sc.realm.id)) subgroups.set(e.supergroup_id, [...(subgroups.get(e.supergroup_id) ?? []), e.subgroup_id]);
  for (const list of [...members.values(), ...subgroups.values()]) list.sort((a, b) => a - b);
  return { groups, byId: new Map(groups.map((g) => [g.id, g])), members, subgroups };
}

/** A setting's value for the API: a named group by id, an anonymous group by its contents. */
export function groupSettingValue(groupId: number | null, data: RealmGroupData): GroupSettingValue | null {
  if (groupId === null) return null;
  const group = data.byId.get(groupId);
  if (!group || group.name !== null) return groupId;
  return { direct_members: [...(data.members.get(groupId) ?? [])], direct_subgroups: [...(data.subgroups.get(groupId) ?? [])] };
}

export const fetchUserGroupState: StateFetcher = async (sc, state) => {
  const data = await realmGroupData(sc);
  const includeDeactivated = sc.opts.clientCapabilities.include_deactivated_groups === true;
  state.realm_user_groups = data.groups
    .filter((g) => g.name !== null && (includeDeactivated || g.deactivated !== 1))
    .map((g) => {
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
      for (const setting of GROUP_PERMISSION_SETTINGS) record[setting] = groupSettingValue(g[`${setting}_id`], data);
      return record;
    });
};
