/**
 * The session lookup: a browser session with its user and realm rows, by the token's hash.
 * Flushed whenever the user or the realm changes (as the API-key lookup) and whenever a
 * session row is deleted (logout, deactivation, password change, here or in another
 * process), so an ended session or a deactivated user is refused on the next request.
 * Expiry is checked on every use, not cached.
 */
import { findSessionByHash } from "../db/queries/sessions.js";
import { findUserById } from "../db/queries/users.js";
import { getRealm } from "../db/queries/realms.js";
import type { Realm, Session, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { GenerationalMap } from "./generational-map.js";

export interface SessionEntry {
  session: Session;
  user: User;
  realm: Realm;
  /** When this process last recorded the session's activity (session-auth.ts), kept here so a cached entry carries it. */
  seen: { at: number };
}

export class SessionCache {
  private readonly sessions = new GenerationalMap<string, SessionEntry>(100_000);

  /** Unknown hashes are not cached (a session may be created). */
  async find(db: Queryable, tokenHash: string): Promise<SessionEntry | undefined> {
    const hit = this.sessions.get(tokenHash);
    if (hit !== undefined) return hit;
    const generation = this.sessions.generation;
    const session = await findSessionByHash(db, tokenHash);
    if (!session) return undefined;
    const user = await findUserById(db, session.realm_id, session.user_id);
    if (!user) return undefined;
    const realm = await getRealm(db, session.realm_id);
    const found = Object.freeze({ session: Object.freeze(session), user: Object.freeze(user), realm: Object.freeze(realm), seen: { at: Number(session.last_seen_at) } });
    this.sessions.fill(tokenHash, found, generation);
    return found;
  }

  flushRealm(realmId: number): void {
    this.sessions.flush((_, { realm }) => realm.id === realmId);
  }

  flushUser(userId: number): void {
    this.sessions.flush((_, { user }) => user.id === userId);
  }

  flushAll(): void {
    this.sessions.flush();
  }
}
