/**
 * What each recipient id of a realm stands for: a user (personal), a channel or a
 * direct-message group with its members. /register's unread read takes these from here
 * instead of joining recipients and groups for each of up to 50,000 unread messages (that
 * join was 40 % of the read for a caller with 2,000 unread).
 *
 * A recipient row never changes once written (nor does a group's member list), so nothing
 * but a flush of the realm or of everything empties an entry; an id the map does not know
 * (a recipient created since it was loaded: a new user, channel or group) reloads it.
 */
import type { Queryable } from "../db/tx.js";
import { realmRecipientRows } from "../db/queries/unread.js";
import { PerRealmCache } from "./per-realm.js";

export interface RecipientFacts {
  /** 1 personal, 2 channel, 3 direct-message group. */
  type: number;
  typeId: number;
  /** Direct-message groups: their sorted, comma-joined member ids. */
  memberKey: string | null;
}

export type RealmRecipients = ReadonlyMap<number, RecipientFacts>;

export class RecipientCache extends PerRealmCache<RealmRecipients> {
  /** The realm's recipients, reloaded once when one of `ids` is not among them. */
  async covering(db: Queryable, realmId: number, ids: Iterable<number>): Promise<RealmRecipients> {
    const load = () => loadRecipients(db, realmId);
    const known = await this.get(realmId, load);
    for (const id of ids) {
      if (known.has(id)) continue;
      this.flushRealm(realmId);
      return this.get(realmId, load);
    }
    return known;
  }
}

async function loadRecipients(db: Queryable, realmId: number): Promise<RealmRecipients> {
  const rows = await realmRecipientRows(db, realmId);
  return new Map(rows.map((r) => [r.id, { type: r.type, typeId: r.type_id, memberKey: r.member_key }]));
}
