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
import { GenerationalMap } from "./generational-map.js";

export type MessageFacts = readonly [recipientId: number, senderId: number, topic: string];

/** One message's facts as the query reads them. */
export type MessageFactRow = [id: number, recipientId: number, senderId: number, topic: string];

export class MessageFactCache {
  private readonly entries = new GenerationalMap<number, { realmId: number; facts: MessageFacts }>(100_000);

  /**
   * A lookup of the facts of `ids`: cached ones, the others read by `load` in one call
   * (stored unless a flush came in between). An id `load` did not find (a message deleted
   * meanwhile) has none.
   */
  async covering(realmId: number, ids: readonly number[], load: (missing: number[]) => Promise<MessageFactRow[]>): Promise<(id: number) => MessageFacts | undefined> {
    const missing = ids.filter((id) => this.entries.get(id) === undefined);
    if (missing.length === 0) return (id) => this.entries.get(id)?.facts;
    const generation = this.entries.generation;
    const loaded = new Map<number, MessageFacts>();
    for (const [id, recipientId, senderId, topic] of await load(missing)) {
      const facts: MessageFacts = [recipientId, senderId, topic];
      loaded.set(id, facts);
      this.entries.fill(id, { realmId, facts }, generation);
    }
    return (id) => loaded.get(id) ?? this.entries.get(id)?.facts;
  }

  flushKeys(ids: Iterable<number>): void {
    this.entries.flushKeys(ids);
  }

  flushRealm(realmId: number): void {
    this.entries.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.entries.flush();
  }
}
