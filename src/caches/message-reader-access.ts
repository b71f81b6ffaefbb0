/**
 * GET /messages/{id}'s access facts (the message's channel now, that channel's access
 * columns, the reader's subscription and flags) by reader and message, on SQLite only, each
 * tagged with the number of COMMITs this process had made when they were read (counted
 * before the rows are read: db/direct-reads.ts). An entry is used only while that count
 * stands still, i.e. while this process has committed nothing at all since: access is
 * still decided on the current rows, without the four-table statement. Other processes'
 * commits (the CLI) flush it with every cache, through the once-per-turn check of the WAL's commit counter
 * (caches/index.ts). PostgreSQL (several nodes, no shared count) reads the rows on every
 * request (lib/message-read.ts).
 */
import type { MessageReaderAccess } from "../db/queries/message-reader-access.js";

interface Entry {
  /** This process's COMMIT count read before the rows. */
  commits: number;
  access: Readonly<MessageReaderAccess>;
}

export class MessageReaderAccessCache {
  /** By `${realmId}:${readerId}:${messageId}` (the reader NOBODY for spectators). */
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 10_000) {}

  /** The facts read while this process's COMMIT count was `commits`, if they were. */
  current(realmId: number, readerId: number, messageId: number, commits: number): Readonly<MessageReaderAccess> | undefined {
    const hit = this.entries.get(`${realmId}:${readerId}:${messageId}`);
    return hit !== undefined && hit.commits === commits ? hit.access : undefined;
  }

  /** Keeps facts read after the COMMIT count was `commits` (they are shared: frozen). */
  remember(realmId: number, readerId: number, messageId: number, commits: number, access: MessageReaderAccess): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(`${realmId}:${readerId}:${messageId}`, { commits, access: Object.freeze(access) });
  }

  /** Everything goes (no sweep): entries are cheap to read again. */
  flushRealm(_realmId: number): void {
    this.entries.clear();
  }

  flushAll(): void {
    this.entries.clear();
  }
}
