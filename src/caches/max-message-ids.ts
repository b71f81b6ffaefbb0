/**
 * Each user's highest message id (GET /users/me `max_message_id`). Any change to the
 * per-user message rows (a send, a deletion, a move) flushes all of it: clearing is
 * cheaper than working out whose value moved, and the value is cheap to read again.
 */
import { GenerationalMap } from "./generational-map.js";

export class MaxMessageIdCache {
  private readonly ids = new GenerationalMap<number, { realmId: number; maxId: number }>(100_000);

  async get(realmId: number, userId: number, load: () => Promise<number>): Promise<number> {
    return (await this.ids.getOrLoad(userId, async () => ({ realmId, maxId: await load() }))).maxId;
  }

  flushRealm(realmId: number): void {
    this.ids.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.ids.flush();
  }
}
