/** A user's own custom profile values (GET /users/me), by user id. */
import type { ProfileData } from "../api-records/user.js";
import { GenerationalMap } from "./generational-map.js";

export class OwnProfileCache {
  private readonly profiles = new GenerationalMap<number, { realmId: number; data: ProfileData }>(100_000);

  async get(realmId: number, userId: number, load: () => Promise<ProfileData>): Promise<ProfileData> {
    const entry = await this.profiles.getOrLoad(userId, async () => ({ realmId, data: Object.freeze(await load()) }));
    return entry.data;
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
