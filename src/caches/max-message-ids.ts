/**
 * Each user's highest message id (GET /users/me `max_message_id`). Any change to the
 * per-user message rows (a send, a deletion, a move) flushes all of it: clearing is
 * cheaper than working out whose value moved, and the value is cheap to read again.
 */
import { GenerationalMap } from "./generational-map.js";

export class MaxMessageIdCache {
  private readonly ids = new GenerationalMap<number, { realmId: number; maxId: number }>(100_000);

  /** A hit answers at once (no promise: GET /users/me asks on every request). */
  get(realmId: number, userId: number, load: () => Promise<number>): number | Promise<number> {
    const hit = this.ids.get(userId);
    if (hit !== undefined) return hit.maxId;
    return this.ids.getOrLoad(userId, async () => ({ realmId, maxId: await load() })).then((entry) => entry.maxId);
  }

  flushRealm(realmId: number): void {
    this.ids.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.ids.flush();
  }
}
