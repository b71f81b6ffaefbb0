/**
 * Changing a user's own message flags (upstream do_update_message_flags): only
 * editable flags; rows are created ("historical") for accessible messages the user
 * never received; one `update_message_flags` event to the user.
 */
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { subscribedChannelIds } from "../db/queries/subscriptions.js";
import { updateFlagBit } from "../db/queries/message-flags.js";
import { findMessagesByIds, insertUserMessages, recipientsByIds, dmGroupMembers, userMessageFlags, RECIPIENT_DM_GROUP } from "../db/queries/messages.js";
import { bulkAccessMessages, invalidMessage } from "../lib/message-access.js";
import { DEFAULT_HISTORICAL_FLAGS, FLAG_BITS, isApiFlag, isEditableFlag, type FlagName } from "../lib/message-flags.js";

/** Checks flag and operation as upstream does, in its order. */
export function checkFlagOperation(flag: string, op: string): void {
  if (!isApiFlag(flag)) throw new ApiError(`Invalid flag: '${flag}'`);
  if (!isEditableFlag(flag)) throw new ApiError(`Flag not editable: '${flag}'`);
  if (op !== "add" && op !== "remove") throw new ApiError(`Invalid message flag operation: '${op}'`);
}

/** Applies the flag change; returns the ids whose flag actually changed. */
export async function doUpdateMessageFlags(ctx: AppContext, realm: Realm, user: User, op: string, flag: string, requested: readonly number[]): Promise<number[]> {
  checkFlagOperation(flag, op);
  const bit = FLAG_BITS[flag as FlagName];
  const adding = op === "add";
  const target = adding ? bit : 0;
  return withTransaction(ctx.db, async (tx) => {
    // Marking unread may leave rows below where /register's unread read starts (unread-floors.ts).
    if (flag === "read" && !adding) ctx.caches.unreadFloors.lowered([user.id]);
    let messages = [...requested];
    if (flag === "read" && !adding) {
      // Unread channel messages must be in channels the user is subscribed to.
      const subscribed = await subscribedChannelIds(tx, realm.id, user.id);
      const rows = await findMessagesByIds(tx, realm.id, messages);
      const excluded = new Set(rows.filter((m) => m.channel_id !== null && !subscribed.has(m.channel_id)).map((m) => m.id));
      messages = messages.filter((id) => !excluded.has(id));
    }
    const ums = await userMessageFlags(tx, user.id, messages);
    messages = [...new Set(messages)].filter((id) => ((ums.get(id) ?? DEFAULT_HISTORICAL_FLAGS) & bit) !== target);
    if ((DEFAULT_HISTORICAL_FLAGS & bit) !== target) {
      const historical = messages.filter((id) => !ums.has(id));
      if (historical.length > 0) {
        const accessible = await bulkAccessMessages(tx, user, historical);
        if (accessible.length !== historical.length) throw invalidMessage();
        const flags = adding ? DEFAULT_HISTORICAL_FLAGS | bit : DEFAULT_HISTORICAL_FLAGS & ~bit;
        await insertUserMessages(tx, historical.map((message_id) => ({ realm_id: realm.id, user_id: user.id, message_id, flags })));
      }
    }
    const existing = messages.filter((id) => ums.has(id));
    if (existing.length > 0) await updateFlagBit(tx, user.id, existing, bit, adding);
    const event: Record<string, unknown> = { type: "update_message_flags", op, operation: op, flag, messages, all: false };
    if (flag === "read" && !adding) event.message_details = await unreadMessageDetails(tx, realm, user, messages);
    // Only the user's own clients learn about their flags.
    sendEventOnCommit(tx, ctx, realm.id, event as { type: string }, [user.id]);
    return messages;
  });
}

/** Upstream format_unread_message_details: what clients need to add messages back to their unread counts. */
async function unreadMessageDetails(db: Parameters<typeof findMessagesByIds>[0], realm: Realm, user: User, ids: number[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  if (ids.length === 0) return out;
  const rows = await findMessagesByIds(db, realm.id, ids);
  const flags = await userMessageFlags(db, user.id, ids);
  const recipients = new Map((await recipientsByIds(db, realm.id, rows.filter((m) => m.channel_id === null).map((m) => m.recipient_id))).map((r) => [r.id, r]));
  const groups = await dmGroupMembers(db, realm.id, [...recipients.values()].filter((r) => r.type === RECIPIENT_DM_GROUP).map((r) => r.type_id));
  for (const m of rows) {
    const mentionBits = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;
    const mentioned = ((flags.get(m.id) ?? 0) & mentionBits) !== 0;
    if (m.channel_id !== null) {
      const d: Record<string, unknown> = { type: "stream", stream_id: m.channel_id, topic: m.topic, unmuted_stream_msg: true };
      if (mentioned) d.mentioned = true;
      out[String(m.id)] = d;
    } else {
      const r = recipients.get(m.recipient_id);
      const members = r?.type === RECIPIENT_DM_GROUP ? (groups.get(r.type_id) ?? []) : [m.sender_id, r?.type_id ?? m.sender_id];
      const d: Record<string, unknown> = { type: "private", user_ids: [...new Set(members)].filter((id) => id !== user.id).sort((a, b) => a - b) };
      if (mentioned) d.mentioned = true;
      out[String(m.id)] = d;
    }
  }
  return out;
}
