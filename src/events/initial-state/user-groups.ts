/**
 * realm_user_groups (event type "realm_user_groups"): the realm's named groups, system
 * groups included, with direct members, direct subgroups and their six permission
 * settings as group-setting values. Three queries, shared with the realm settings.
 */
import { loadRealmGroupData } from "../../lib/user-group-data.js";
import { toApiUserGroups, type RealmGroupData } from "../../api-records/user-group.js";
import type { RealmGroups } from "../../caches/register-parts.js";
import { RawJson, setRaw } from "./raw-json.js";
import type { StateContext, StateFetcher } from "./types.js";

export { groupSettingValue, type GroupSettingValue, type RealmGroupData } from "../../api-records/user-group.js";

const loaded = new WeakMap<StateContext, Promise<RealmGroups>>();

/** The realm's groups from the group cache, looked up once per /register. */
function cachedGroups(sc: StateContext): Promise<RealmGroups> {
  let cached = loaded.get(sc);
  if (!cached) {
    cached = sc.ctx.caches.registerGroups.get(sc.realm.id, async () => ({ data: await loadRealmGroupData(sc.ctx.db, sc.realm.id), json: new Map() }));
    loaded.set(sc, cached);
  }
  return cached;
}

/** The realm's groups (shared and cached: read it, never change it). */
export async function realmGroupData(sc: StateContext): Promise<RealmGroupData> {
  return (await cachedGroups(sc)).data;
}

export const fetchUserGroupState: StateFetcher = async (sc, state) => {
  const includeDeactivated = sc.opts.clientCapabilities.include_deactivated_groups === true;
  const cached = await cachedGroups(sc);
  let json = cached.json.get(includeDeactivated);
  if (json === undefined) cached.json.set(includeDeactivated, (json = Buffer.from(JSON.stringify(toApiUserGroups(cached.data, includeDeactivated)))));
  setRaw(state, "realm_user_groups", new RawJson([json]));
};
