/**
 * GET /messages/{id}'s access facts (the message's channel now, that channel's access
 * columns, the reader's subscription and flags) by reader and message, on SQLite only, each
 * tagged with the reader connection's data_version read just before the rows: an entry is
 * used only while the data_version is still that value, i.e. while nothing at all has been
 * committed since (by this process or another). Access is still decided on current rows,
 * and while the database has not changed the four-table statement is replaced by one
 * `PRAGMA data_version`. No event or flush is needed for correctness; flushes only free
 * memory. PostgreSQL has no such counter: there every request reads the rows
 * (lib/message-read.ts).
 */
import type { MessageReaderAccess } from "../db/queries/message-reader-access.js";

interface Entry {
  /** The reader connection's data_version read before the rows. */
  dataVersion: number;
  access: Readonly<MessageReaderAccess>;
}

export class MessageReaderAccessCache {
  /** By `${realmId}:${readerId}:${messageId}` (the reader NOBODY for spectators). */
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 10_000) {}

  /** The facts read while the database was at `dataVersion`, if they were. */
  current(realmId: number, readerId: number, messageId: number, dataVersion: number): Readonly<MessageReaderAccess> | undefined {
    const hit = this.entries.get(`${realmId}:${readerId}:${messageId}`);
    return hit !== undefined && hit.dataVersion === dataVersion ? hit.access : undefined;
  }

  /** Keeps facts read after the data_version read `dataVersion` (they are shared: frozen). */
  remember(realmId: number, readerId: number, messageId: number, dataVersion: number, access: MessageReaderAccess): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(`${realmId}:${readerId}:${messageId}`, { dataVersion, access: Object.freeze(access) });
  }

  /** Everything goes (no sweep): entries are cheap to read again and never wrong anyway. */
  flushRealm(_realmId: number): void {
    this.entries.clear();
  }

  flushAll(): void {
    this.entries.clear();
  }
}
