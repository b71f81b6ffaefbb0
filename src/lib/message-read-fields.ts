/**
 * GET /messages/{id}'s answer (`raw_content` and `message`) as JSON bytes, with no
 * statement but the access check (message-read.ts): the reader-independent record comes
 * from ctx.caches.messageRecords, serialized once per set of options around the reader's
 * flags, which are spliced in.
 */
import type { AppContext } from "../context.js";
import type { Realm } from "../db/schema.js";
import { findMessageForReader } from "../db/queries/message-fetch.js";
import { NOBODY, type MessageReaderAccess } from "../db/queries/message-reader-access.js";
import type { CachedMessageRecord, FieldsAroundFlags } from "../caches/message-records.js";
import type { MessageRecordOptions } from "../api-records/message.js";
import { invalidMessage } from "./message-access.js";
import { DEFAULT_HISTORICAL_FLAGS, flagsToList } from "./message-flags.js";
import { recordOfReadMessage } from "./message-records.js";

/** Stands for the flags while the record is serialized: JSON text can hold `"flags":"\u0000flags"` only as the member itself. */
const FLAGS_MARKER = "\u0000flags";
const MARKER_MEMBER = `"flags":${JSON.stringify(FLAGS_MARKER)}`;
/** Distinct flag values kept per record; beyond them the flags' part is built per request. */
const MAX_FLAG_VARIANTS = 32;

/**
 * The JSON members of the answer for a reader who may read the message (`access` comes
 * from the access check of this request), as two parts: the record before the flags, and
 * the flags with the rest. `flags` are the bits to show (null: no per-user row).
 */
export async function messageReadFields(
  ctx: AppContext,
  realm: Realm,
  host: string,
  messageId: number,
  access: MessageReaderAccess,
  flags: number | null,
  opts: MessageRecordOptions,
): Promise<[Buffer, Buffer]> {
  const cache = ctx.caches.messageRecords;
  const load = () => loadRecord(ctx, realm.id, messageId);
  let cached = await cache.get(realm.id, messageId, load);
  // The access check read the message's channel now: a cached record from another channel
  // (a move whose flush this process has not seen yet) is never shown.
  if (cached.read.message.channel_id !== access.channelId) {
    cache.flushKeys([messageId]);
    cached = await cache.get(realm.id, messageId, load);
    if (cached.read.message.channel_id !== access.channelId) throw invalidMessage();
  }
  const key = `${opts.applyMarkdown ? 1 : 0}${opts.allowEmptyTopicName ? 1 : 0}${opts.clientHashavatar ? 1 : 0}`;
  let fields = cached.serialized.get(key);
  if (fields === undefined) cached.serialized.set(key, (fields = serializeAroundFlags(cached, realm, host, opts)));
  return [fields.before, fieldsFromFlags(fields, flags ?? DEFAULT_HISTORICAL_FLAGS)];
}

async function loadRecord(ctx: AppContext, realmId: number, messageId: number): Promise<CachedMessageRecord> {
  // Loaded as nobody: the cached part must not depend on the reader.
  const read = await findMessageForReader(ctx.db, realmId, NOBODY, messageId);
  if (!read) throw invalidMessage();
  return { read, serialized: new Map() };
}

function serializeAroundFlags({ read }: CachedMessageRecord, realm: Realm, host: string, opts: MessageRecordOptions): FieldsAroundFlags {
  const record = recordOfReadMessage(read, realm, host, 0, opts);
  record.flags = FLAGS_MARKER;
  const members = JSON.stringify({ raw_content: read.message.content, message: record }).slice(1, -1);
  const at = members.indexOf(MARKER_MEMBER);
  if (at < 0 || members.lastIndexOf(MARKER_MEMBER) !== at) throw new Error("message record: the flags marker must occur once");
  return { before: Buffer.from(members.slice(0, at)), after: members.slice(at + MARKER_MEMBER.length), fromFlags: new Map() };
}

function fieldsFromFlags(fields: FieldsAroundFlags, bits: number): Buffer {
  const hit = fields.fromFlags.get(bits);
  if (hit !== undefined) return hit;
  const part = Buffer.from(`"flags":${JSON.stringify(flagsToList(bits))}${fields.after}`);
  if (fields.fromFlags.size < MAX_FLAG_VARIANTS) fields.fromFlags.set(bits, part);
  return part;
}
