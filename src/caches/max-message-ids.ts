/**
 * Each user's highest message id (GET /users/me `max_message_id`), by user id. Any change to
 * the per-user message rows (a send, a deletion, a move) flushes all of it: clearing is
 * cheaper than working out whose value moved, and the value is cheap to read again.
 */
import { RealmEntryCache } from "./realm-entries.js";

export class MaxMessageIdCache extends RealmEntryCache<number, number> {
  constructor() {
    super(100_000);
  }
}
