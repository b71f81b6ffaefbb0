/**
 * What /register's unread read needs of each message besides the reader's flags: its
 * recipient, sender and topic, by message id. A message unread by many members was joined
 * once per member and register (for a caller with 2,000 unread, the join and its JSON were
 * 1.7 of the read's 2.7 ms); here each is read once, in one statement for all the ids a
 * register misses. The sender never changes; the recipient and topic change only when the
 * message moves, and every write to `messages` other than an insert (write-watcher.ts) and
 * every `update_message` / `delete_message` event (its ids) flush them (index.ts, kind
 * "messageRecords"), as they flush GET /messages/{id}'s records.
 */
import { RealmEntryCache } from "./realm-entries.js";

export type MessageFacts = readonly [recipientId: number, senderId: number, topic: string];

/** One message's facts as the query reads them. */
export type MessageFactRow = [id: number, recipientId: number, senderId: number, topic: string];

/** By message id (ids are unique across realms); flushKeys takes message ids. */
export class MessageFactCache extends RealmEntryCache<number, MessageFacts> {
  constructor() {
    super(100_000);
  }

  /**
   * The facts of `ids`: cached ones, the others read by `load` in one call (stored unless a
   * flush came in between). Taken at once, so a flush while the caller uses them cannot
   * leave a message without its facts. An id `load` did not find (a message deleted
   * meanwhile) has none.
   */
  async covering(realmId: number, ids: readonly number[], load: (missing: number[]) => Promise<MessageFactRow[]>): Promise<ReadonlyMap<number, MessageFacts>> {
    const found = new Map<number, MessageFacts>();
    const missing: number[] = [];
    for (const id of ids) {
      const hit = this.entries.get(id);
      if (hit === undefined) missing.push(id);
      else found.set(id, hit.value);
    }
    if (missing.length === 0) return found;
    const generation = this.entries.generation;
    for (const [id, recipientId, senderId, topic] of await load(missing)) {
      const facts: MessageFacts = [recipientId, senderId, topic];
      found.set(id, facts);
      this.entries.fill(id, { realmId, value: facts }, generation);
    }
    return found;
  }
}
