/**
 * The window of messages GET /messages returns around its anchor (upstream
 * parse_anchor_value, limit_query_to_range and post_process_limited_query).
 */
import { sql, type SqlBool } from "kysely";
import { ApiError } from "../errors.js";
import type { Queryable } from "../db/tx.js";
import { narrowRows, type NarrowQuery, type NarrowRange } from "../db/queries/message-narrow.js";
import { DEFAULT_HISTORICAL_FLAGS, FLAG_BITS } from "./message-flags.js";

const unread = sql<SqlBool>`(coalesce(${sql.ref("um.flags")}, ${DEFAULT_HISTORICAL_FLAGS}) & ${sql.lit(FLAG_BITS.read)}) = 0`;

/** Upstream's stand-in for "after the newest message". */
export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;
export const MAX_MESSAGES_PER_FETCH = 5000;

/** The anchor parameter: oldest → 0, newest → LARGER_THAN_MAX, first_unread → null, or an integer. */
export function parseAnchor(raw: string | undefined, useFirstUnread: boolean): number | null {
  if (useFirstUnread) return null;
  if (raw === undefined) throw new ApiError("Missing 'anchor' argument.");
  if (raw === "oldest") return 0;
  if (raw === "newest") return LARGER_THAN_MAX_MESSAGE_ID;
  if (raw === "first_unread") return null;
  if (!/^\s*[-+]?\d+\s*$/.test(raw)) throw new ApiError("Invalid anchor");
  const n = Number(raw);
  if (n < 0) return 0;
  return Math.min(n, LARGER_THAN_MAX_MESSAGE_ID);
}

interface WindowRow {
  id: number;
  flags: number | null;
}

/** Runs the narrow's query for one side of the window (ids only, or whole messages). */
export type NarrowFetcher<R extends WindowRow> = (db: Queryable, q: NarrowQuery, range: NarrowRange) => Promise<R[]>;

export interface WindowResult<R extends WindowRow = WindowRow> {
  rows: R[];
  anchor: number;
  found_anchor: boolean;
  found_oldest: boolean;
  found_newest: boolean;
}

/**
 * The messages around the anchor (upstream limit_query_to_range and
 * post_process_limited_query): at most num_before older, the anchor, num_after newer.
 */
export async function fetchWindow<R extends WindowRow = WindowRow>(
  db: Queryable,
  q: NarrowQuery,
  opts: { anchor: number | null; numBefore: number; numAfter: number; includeAnchor: boolean },
  fetchRows: NarrowFetcher<R> = narrowRows as unknown as NarrowFetcher<R>,
): Promise<WindowResult<R>> {
  let anchor = opts.anchor;
  if (anchor === null) {
    const [first] = await narrowRows(db, { ...q, conditions: [...q.conditions, unread] }, {
      op: ">=",
      anchor: 0,
      order: "asc",
      limit: 1,
    });
    anchor = first ? first.id : LARGER_THAN_MAX_MESSAGE_ID;
  }
  const anchoredToLeft = anchor === 0;
  const anchoredToRight = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const numBefore = opts.numBefore;
  const numAfter = anchoredToRight ? 0 : opts.numAfter;
  const include = opts.includeAnchor ? 1 : 0;
  const needBefore = !anchoredToLeft && numBefore > 0;
  const needAfter = !anchoredToRight && numAfter > 0;
  let rows: R[] = [];
  if (needBefore && needAfter) {
    const before = await fetchRows(db, q, { op: "<=", anchor: anchor - 1, order: "desc", limit: numBefore });
    const after = await fetchRows(db, q, { op: ">=", anchor, order: "asc", limit: numAfter + 1 });
    rows = [...before.reverse(), ...after];
  } else if (needBefore) {
    const limit = numBefore + (anchoredToRight ? 0 : include);
    rows = (await fetchRows(db, q, { op: "<=", anchor: anchor - (opts.includeAnchor ? 0 : 1), order: "desc", limit })).reverse();
  } else if (needAfter) {
    rows = await fetchRows(db, q, { op: ">=", anchor: anchor + (opts.includeAnchor ? 0 : 1), order: "asc", limit: numAfter + include });
  } else if (opts.includeAnchor && !anchoredToRight) {
    rows = await fetchRows(db, q, { op: "=", anchor, order: "asc", limit: 1 });
  }
  const a = anchor;
  let beforeRows = anchoredToRight ? rows : rows.filter((r) => r.id < a);
  const anchorRows = anchoredToRight || !opts.includeAnchor ? [] : rows.filter((r) => r.id === a);
  let afterRows = anchoredToRight ? [] : rows.filter((r) => r.id > a);
  if (numBefore) beforeRows = beforeRows.slice(-numBefore);
  else beforeRows = [];
  if (numAfter) afterRows = afterRows.slice(0, numAfter);
  else afterRows = [];
  return {
    rows: [...beforeRows, ...anchorRows, ...afterRows],
    anchor,
    found_anchor: anchorRows.length === 1,
    found_oldest: anchoredToLeft || beforeRows.length < numBefore,
    found_newest: anchoredToRight || afterRows.length < numAfter,
  };
}
