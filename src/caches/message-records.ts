/**
 * GET /messages/{id}: each message's reader-independent part (what its record shows:
 * content, sender, reactions, submessages, edits, topic links), by message id. The
 * per-reader part (access, flags) is never cached. What flushes it is decided in
 * index.ts: per message the events about it (edits, moves, deletions, reactions), per
 * realm whatever a record shows of others (users, channels, the realm, linkifiers).
 */
import type { MessageForReader } from "../db/queries/message-fetch.js";
import { GenerationalMap } from "./generational-map.js";

/** A record as JSON members with the reader's flags left out (built by lib/message-read-fields.ts). */
export interface FieldsAroundFlags {
  /** Every member before `"flags":`, as bytes. */
  before: Buffer;
  /** What follows the flags' list, as text. */
  after: string;
  /** `"flags":[…]` and `after`, by flag bits (few distinct values: read, starred, mentioned…). */
  fromFlags: Map<number, Buffer>;
}

export interface CachedMessageRecord {
  /** The message as loaded with nobody's flags (a spectator's view of its rows). */
  read: MessageForReader;
  /** Serialized records by request options (apply_markdown, allow_empty_topic_name), built on first use. */
  serialized: Map<string, FieldsAroundFlags>;
}

export class MessageRecordCache {
  private readonly entries = new GenerationalMap<number, { realmId: number; value: CachedMessageRecord }>(10_000);

  /** A hit answers at once (no promise; message ids are unique across realms). A load that throws stores nothing. */
  get(realmId: number, messageId: number, load: () => Promise<CachedMessageRecord>): CachedMessageRecord | Promise<CachedMessageRecord> {
    const hit = this.entries.get(messageId);
    if (hit !== undefined) return hit.value;
    return this.entries.getOrLoad(messageId, async () => ({ realmId, value: await load() })).then((entry) => entry.value);
  }

  flushMessages(messageIds: readonly number[]): void {
    this.entries.flushKeys(messageIds);
  }

  flushRealm(realmId: number): void {
    this.entries.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.entries.flush();
  }
}
