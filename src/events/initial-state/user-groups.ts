/**
 * realm_user_groups (event type "realm_user_groups"): the realm's named groups, system
 * groups included, with direct members, direct subgroups and their six permission
 * settings as group-setting values. Three queries, shared with the realm settings.
 */
import { loadRealmGroupData } from "../../lib/user-group-data.js";
import { toApiUserGroups, type RealmGroupData } from "../../api-records/user-group.js";
import type { StateContext, StateFetcher } from "./types.js";

export { groupSettingValue, type GroupSettingValue, type RealmGroupData } from "../../api-records/user-group.js";

const loaded = new WeakMap<StateContext, Promise<RealmGroupData>>();

/** The realm's groups, loaded once per /register. */
export function realmGroupData(sc: StateContext): Promise<RealmGroupData> {
  let data = loaded.get(sc);
  if (!data) {
    data = loadRealmGroupData(sc.ctx.db, sc.realm.id);
    loaded.set(sc, data);
  }
  return data;
}

export const fetchUserGroupState: StateFetcher = async (sc, state) => {
  const includeDeactivated = sc.opts.clientCapabilities.include_deactivated_groups === true;
  state.realm_user_groups = toApiUserGroups(await realmGroupData(sc), includeDeactivated);
};
