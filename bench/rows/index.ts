/**
 * Every row, in run order: grouped by organization size (the realm grows 1k → 10k → 100k
 * between groups), long-polls at 1k after the other reads and writes (they stay open from
 * the fan-out to the delivery row) and first at 10k (the server's memory is read before
 * anything else has run on it); /register last, as its callers leave a queue per call that
 * is never polled (about 1,700 in 5 s), which every later fan-out message would also fill.
 */
import type { Row } from "../row.js";
import { longPollRows10k, longPollRows1k } from "./long-polls.js";
import { presenceRows } from "./presence.js";
import { readRows } from "./reads.js";
import { registerRows } from "./register.js";
import { writeRows } from "./writes.js";

const inOrder = [...longPollRows10k, ...readRows, ...writeRows, ...presenceRows, ...longPollRows1k, ...registerRows];

export const ALL_ROWS: Row[] = inOrder.map((row, i) => ({ row, i })).sort((a, b) => a.row.users - b.row.users || a.i - b.i).map(({ row }) => row);
