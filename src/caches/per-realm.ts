/**
 * One value per realm, built by the caller on a miss (the realm-wide parts of /register:
 * channel records, user groups, bots). What flushes each instance is decided in index.ts.
 */
import { GenerationalMap } from "./generational-map.js";

export class PerRealmCache<V> {
  private readonly byRealm = new GenerationalMap<number, V>(1000);

  async get(realmId: number, load: () => Promise<V>): Promise<V> {
    return this.byRealm.getOrLoad(realmId, load);
  }

  flushRealm(realmId: number): void {
    this.byRealm.flush((id) => id === realmId);
  }

  flushAll(): void {
    this.byRealm.flush();
  }
}
