/**
 * Who hears about a change to existing messages (reactions, deletions): users with a
 * per-user row for any of them and, for a channel whose history is public to
 * subscribers, its active subscribers (upstream event_recipient_ids_for_action_on_messages;
 * doDeleteMessage applies the same rule inline).
 */
import type { Channel } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { userMessageRows } from "../db/queries/message-edits.js";
import { subscriberIdsByChannel } from "../db/queries/subscriptions.js";

export async function messageEventRecipientIds(db: Queryable, realmId: number, messageIds: readonly number[], channel: Channel | null): Promise<number[]> {
  const ids = new Set((await userMessageRows(db, messageIds)).map((r) => r.user_id));
  if (channel?.history_public_to_subscribers) {
    for (const id of (await subscriberIdsByChannel(db, realmId, [channel.id])).get(channel.id) ?? []) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}
