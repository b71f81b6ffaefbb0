/** A user's own custom profile values (GET /users/me), by user id. */
import type { ProfileData } from "../api-records/user.js";
import { GenerationalMap } from "./generational-map.js";

export class OwnProfileCache {
  private readonly profiles = new GenerationalMap<number, { realmId: number; data: ProfileData }>(100_000);

  /** A hit answers at once (no promise: GET /users/me asks on every request). */
  get(realmId: number, userId: number, load: () => Promise<ProfileData>): ProfileData | Promise<ProfileData> {
    const hit = this.profiles.get(userId);
    if (hit !== undefined) return hit.data;
    return this.profiles.getOrLoad(userId, async () => ({ realmId, data: Object.freeze(await load()) })).then((entry) => entry.data);
  }

  flushUser(userId: number): void {
    this.profiles.flush((id) => id === userId);
  }

  flushRealm(realmId: number): void {
    this.profiles.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.profiles.flush();
  }
}
