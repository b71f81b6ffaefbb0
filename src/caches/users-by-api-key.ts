/**
 * The auth lookup: user row and realm row by API key. Flushed on every change of the user
 * or the realm, so a deactivation, a role change or a new key is seen by the very next request.
 */
import { findUserByApiKey } from "../db/queries/users.js";
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { GenerationalMap } from "./generational-map.js";

export class UserByApiKeyCache {
  private readonly users = new GenerationalMap<string, { user: User; realm: Realm }>(100_000);

  /** Unknown keys are not cached (a key may be created). */
  async find(db: Queryable, apiKey: string): Promise<{ user: User; realm: Realm } | undefined> {
    const hit = this.users.get(apiKey);
    if (hit !== undefined) return hit;
    const generation = this.users.generation;
    // One read of both rows (not the realm cache): a miss always costs the same statements.
    const row = await findUserByApiKey(db, apiKey);
    if (!row) return undefined;
    const found = Object.freeze({ user: Object.freeze(row.user), realm: Object.freeze(row.realm) });
    this.users.fill(apiKey, found, generation);
    return found;
  }

  flushRealm(realmId: number): void {
    this.users.flush((_, { user }) => user.realm_id === realmId);
  }

  flushUser(userId: number): void {
    this.users.flush((_, { user }) => user.id === userId);
  }

  flushAll(): void {
    this.users.flush();
  }
}
