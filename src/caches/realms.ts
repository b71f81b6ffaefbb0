/** Realm rows by subdomain and by id: every request resolves its realm, most never change it. */
import { findRealmBySubdomain, getRealm } from "../db/queries/realms.js";
import type { Realm } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { GenerationalMap } from "./generational-map.js";

export class RealmCache {
  private readonly bySubdomain = new GenerationalMap<string, Realm>(1000);
  private readonly byId = new GenerationalMap<number, Realm>(1000);

  /** The realm of a subdomain; unknown subdomains are not cached (a realm may be created). */
  async findBySubdomain(db: Queryable, subdomain: string): Promise<Realm | undefined> {
    const hit = this.bySubdomain.get(subdomain);
    if (hit !== undefined) return hit;
    const generation = this.bySubdomain.generation;
    const realm = await findRealmBySubdomain(db, subdomain);
    if (realm) this.bySubdomain.fill(subdomain, Object.freeze(realm), generation);
    return realm;
  }

  async get(db: Queryable, id: number): Promise<Realm> {
    return this.byId.getOrLoad(id, async () => Object.freeze(await getRealm(db, id)));
  }

  flushRealm(realmId: number): void {
    this.bySubdomain.flush((_, realm) => realm.id === realmId);
    this.byId.flush((id) => id === realmId);
  }

  flushAll(): void {
    this.bySubdomain.flush();
    this.byId.flush();
  }
}
