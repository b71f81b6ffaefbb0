/**
 * Entries by key, each tagged with its realm so a realm's change flushes only that realm's
 * entries: the shape of the per-user and per-message caches (max message ids, own profile
 * values, message records). A hit answers at once, without a promise: these are read on
 * every request of hot paths.
 */
import { GenerationalMap } from "./generational-map.js";

export class RealmEntryCache<K, V> {
  protected readonly entries: GenerationalMap<K, { realmId: number; value: V }>;

  /** `freeze`: loaded values are frozen (shared by every reader, which must not change them). */
  constructor(
    maxEntries: number,
    private readonly freeze = false,
  ) {
    this.entries = new GenerationalMap(maxEntries);
  }

  /** The entry for `key` (of `realmId`), loaded by `load` on a miss; a load that throws stores nothing. */
  get(realmId: number, key: K, load: () => Promise<V>): V | Promise<V> {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit.value;
    return this.entries
      .getOrLoad(key, async () => {
        const value = await load();
        return { realmId, value: this.freeze ? Object.freeze(value) : value };
      })
      .then((entry) => entry.value);
  }

  /** Forgets these keys (no sweep of the other entries). */
  flushKeys(keys: Iterable<K>): void {
    this.entries.flushKeys(keys);
  }

  flushRealm(realmId: number): void {
    this.entries.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.entries.flush();
  }
}
