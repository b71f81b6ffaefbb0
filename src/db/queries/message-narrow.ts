/**
 * Messages matching a narrow (GET /messages, flag updates by narrow): one statement over
 * messages `m` joined with the caller's user_messages `um`, either only the ids and flags
 * or directly the columns a message object needs (no second lookup by id).
 */
import type { Expression, SqlBool } from "kysely";
import type { Message } from "../schema.js";
import type { Queryable } from "../tx.js";
import { literalLimit } from "../compiled.js";

/** Largest id an integer column can hold; anchors beyond it are clamped in queries. */
const MAX_INT_ID = 2147483647;

export interface NarrowQuery {
  realmId: number;
  userId: number;
  /** Include messages without a per-user row (left join) instead of only received ones. */
  includeHistory: boolean;
  conditions: ReadonlyArray<Expression<SqlBool>>;
}

export interface NarrowRange {
  op: "<=" | ">=" | "=";
  anchor: number;
  order: "asc" | "desc";
  limit: number;
}

/** The message columns a message object shows (toApiMessage), without the rest of the row. */
export const MESSAGE_RECORD_COLUMNS = [
  "id",
  "sender_id",
  "recipient_id",
  "channel_id",
  "topic",
  "content",
  "rendered_content",
  "date_sent",
  "sending_client",
  "is_me_message",
] as const;
export type MessageForRecord = Pick<Message, (typeof MESSAGE_RECORD_COLUMNS)[number]>;

/** Every message of the realm, with the user's row when there is one. */
const withHistory = (db: Queryable, q: NarrowQuery) =>
  db
    .selectFrom("messages as m")
    .leftJoin("user_messages as um", (j) => j.onRef("um.message_id", "=", "m.id").on("um.user_id", "=", q.userId))
    .where("m.realm_id", "=", q.realmId);

/** Only the messages the user received (typed as withHistory's builder: the same columns, never null). */
const receivedOnly = (db: Queryable, q: NarrowQuery) =>
  db
    .selectFrom("user_messages as um")
    .innerJoin("messages as m", "m.id", "um.message_id")
    .where("um.user_id", "=", q.userId)
    .where("m.realm_id", "=", q.realmId) as unknown as ReturnType<typeof withHistory>;

function narrowed(db: Queryable, q: NarrowQuery, range: NarrowRange) {
  const anchor = Math.min(Math.max(range.anchor, -1), MAX_INT_ID);
  let query = q.includeHistory ? withHistory(db, q) : receivedOnly(db, q);
  for (const c of q.conditions) query = query.where(c);
  // A literal LIMIT: one prepared statement per limit, not prepared again on every run (compiled.ts).
  return query.where("m.id", range.op, anchor).orderBy("m.id", range.order).limit(literalLimit(range.limit));
}

/** Message ids (with the user's flags, null without a row) matching a narrow, in one query. */
export async function narrowRows(db: Queryable, q: NarrowQuery, range: NarrowRange): Promise<Array<{ id: number; flags: number | null }>> {
  if (range.limit <= 0) return [];
  const rows = await narrowed(db, q, range).select(["m.id as id", "um.flags as flags"]).execute();
  return rows.map((r) => ({ id: r.id, flags: r.flags ?? null }));
}

/** The matching messages themselves (the columns of MESSAGE_RECORD_COLUMNS) with the user's flags. */
export async function narrowMessages(db: Queryable, q: NarrowQuery, range: NarrowRange): Promise<Array<{ id: number; flags: number | null; message: MessageForRecord }>> {
  if (range.limit <= 0) return [];
  const rows = await narrowed(db, q, range)
    .select(MESSAGE_RECORD_COLUMNS.map((c) => `m.${c}` as const))
    .select("um.flags as flags")
    .execute();
  return rows.map(({ flags, ...message }) => ({ id: message.id, flags: flags ?? null, message }));
}
