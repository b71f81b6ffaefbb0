/** A user's own custom profile values (GET /users/me), by user id. */
import type { ProfileData } from "../api-records/user.js";
import { RealmEntryCache } from "./realm-entries.js";

export class OwnProfileCache extends RealmEntryCache<number, ProfileData> {
  constructor() {
    super(100_000, true);
  }
}
