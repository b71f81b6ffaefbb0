/**
 * Marking many messages read at once (upstream do_mark_all_as_read and
 * do_mark_stream_messages_as_read). A channel or topic goes through the flag-update
 * action (one `update_message_flags` event listing the messages); everything goes in
 * batches, each its own transaction, and ends with one event saying `all: true`.
 */
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { unreadIdsBatch, unreadIdsInChannel } from "../db/queries/mark-read.js";
import { updateFlagBit } from "../db/queries/message-flags.js";
import { sendEventOnCommit } from "../events/send.js";
import { FLAG_BITS } from "../lib/message-flags.js";
import { doUpdateMessageFlags } from "./message-flags.js";

/** Rows marked per transaction, as upstream. */
export const MARK_ALL_BATCH_SIZE = 2000;
/** Upstream stops after this long and answers `complete: false`; the client calls again. */
export const MARK_ALL_TIMEOUT_MS = 50_000;

/** Returns false when the time ran out before every message was marked (no event then, as upstream). */
export async function doMarkAllAsRead(ctx: AppContext, realm: Realm, user: User, opts: { batchSize?: number; timeoutMs?: number } = {}): Promise<boolean> {
  const batchSize = opts.batchSize ?? MARK_ALL_BATCH_SIZE;
  const deadline = Date.now() + (opts.timeoutMs ?? MARK_ALL_TIMEOUT_MS);
  for (;;) {
    if (Date.now() >= deadline) return false;
    const done = await withTransaction(ctx.db, async (tx) => {
      const ids = await unreadIdsBatch(tx, realm.id, user.id, batchSize);
      if (ids.length > 0) await updateFlagBit(tx, user.id, ids, FLAG_BITS.read, true);
      if (ids.length < batchSize) {
        sendEventOnCommit(tx, ctx, realm.id, { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: true }, [user.id]);
      }
      return ids.length < batchSize;
    });
    if (done) return true;
  }
}

/** Marks the user's unread messages of a channel (or of one topic) read; returns how many. */
export async function doMarkChannelAsRead(ctx: AppContext, realm: Realm, user: User, channelId: number, topic?: string): Promise<number> {
  const ids = await unreadIdsInChannel(ctx.db, realm.id, user.id, channelId, topic);
  // Nothing unread: no event, as upstream.
  if (ids.length === 0) return 0;
  return (await doUpdateMessageFlags(ctx, realm, user, "add", "read", ids)).length;
}
