/**
 * Each realm's user groups with their members and subgroups (realm_user_groups and the
 * realm's group-setting values in /register), and the serialized realm_user_groups list.
 * At thousands of users the system groups' member lists dominate their cost. Flushed by
 * any write to the group tables or user_group event, and by user changes (a deactivated
 * user leaves the named groups' member lists).
 */
import type { RealmGroupData } from "../api-records/user-group.js";
import { GenerationalMap } from "./generational-map.js";

export interface CachedGroups {
  realmId: number;
  data: RealmGroupData;
  /** realm_user_groups as JSON, by whether deactivated groups are included (filled on first use). */
  json: Map<boolean, Buffer>;
}

export class UserGroupCache {
  private readonly byRealm = new GenerationalMap<number, CachedGroups>(1000);

  async get(realmId: number, load: () => Promise<RealmGroupData>): Promise<CachedGroups> {
    return this.byRealm.getOrLoad(realmId, async () => ({ realmId, data: await load(), json: new Map() }));
  }

  flushRealm(realmId: number): void {
    this.byRealm.flush((id) => id === realmId);
  }

  flushAll(): void {
    this.byRealm.flush();
  }
}
