/** Loads a realm's groups for their API records (three queries, whatever the nesting). */
import type { Queryable } from "../db/tx.js";
import { listRealmGroupSubgroups, listRealmUserGroups } from "../db/queries/initial-state.js";
import { listRealmGroupMembersForApi } from "../db/queries/user-groups.js";
import { realmGroupDataFrom, type RealmGroupData } from "../api-records/user-group.js";

export async function loadRealmGroupData(db: Queryable, realmId: number): Promise<RealmGroupData> {
  return realmGroupDataFrom(await listRealmUserGroups(db, realmId), await listRealmGroupMembersForApi(db, realmId), await listRealmGroupSubgroups(db, realmId));
}
