/**
 * Full presence data (modern format, a viewer who may see everyone), serialized per realm
 * and request shape. Every presence write takes the next value of the realm's presence
 * sequence, so an entry is served only while the sequence it was built at is still the
 * realm's (one indexed lookup per request; it also sees other processes' and nodes'
 * reports). User and realm changes (deactivation, presence_enabled, presence_disabled)
 * flush it like the other caches. An entry also expires once its oldest row would fall
 * out of the history window.
 */
import { GenerationalMap } from "./generational-map.js";

export interface SerializedPresence {
  realmId: number;
  /** The realm's presence sequence when the rows were read. */
  sequence: number;
  /** Oldest last_connected_time among the rows (Infinity without rows). */
  oldestConnected: number;
  /** `"presences":{…},"presence_last_update_id":N` */
  json: string;
}

export interface PresenceKey {
  realmId: number;
  historyLimitDays: number;
  /** The client's last_update_id (≤ 0 on a full fetch): the answer's id when no row is newer. */
  fallbackId: number;
}

export class PresenceCache {
  private readonly entries = new GenerationalMap<string, SerializedPresence>(1000);

  /** The cached fields when still valid at `sequence` and `windowStart`, else `load()`'s (stored). */
  async fields(key: PresenceKey, sequence: number, windowStart: number, load: () => Promise<Omit<SerializedPresence, "realmId" | "sequence">>): Promise<string> {
    const k = `${key.realmId}:${key.historyLimitDays}:${key.fallbackId}`;
    const hit = this.entries.get(k);
    if (hit !== undefined && hit.sequence === sequence && hit.oldestConnected >= windowStart) return hit.json;
    const generation = this.entries.generation;
    const loaded = await load();
    this.entries.fill(k, { realmId: key.realmId, sequence, ...loaded }, generation);
    return loaded.json;
  }

  flushRealm(realmId: number): void {
    this.entries.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.entries.flush();
  }
}
