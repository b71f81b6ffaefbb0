/**
 * GET /messages/{id}: each message's reader-independent part (what its record shows:
 * content, sender, reactions, submessages, edits, topic links), by message id. The
 * per-reader part (access, flags) is never cached. What flushes it is decided in
 * index.ts: per message the events about it (edits, moves, deletions, reactions), per
 * realm whatever a record shows of others (users, channels, the realm, linkifiers).
 */
import type { MessageForReader } from "../db/queries/message-fetch.js";
import { RealmEntryCache } from "./realm-entries.js";

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

/** By message id (ids are unique across realms); flushKeys takes message ids. */
export class MessageRecordCache extends RealmEntryCache<number, CachedMessageRecord> {
  constructor() {
    super(10_000);
  }
}
