/**
 * Deleting a topic (spec 4.8, upstream delete_in_topic): the messages the administrator
 * can access go in batches, newest first, one transaction per batch, until the topic is
 * empty or the time budget is spent (`complete: false`: the client asks again).
 * Everything hanging off the messages goes with them; each batch sends `delete_message`
 * to the messages' readers, and a `stream` update when the channel's first message went.
 * Once done, topic preferences of users left with nothing to read there are cleared.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import type { Channel, Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { activeRealmUsers } from "../db/queries/users.js";
import { subscriberIdsByChannel } from "../db/queries/subscriptions.js";
import { deleteMessagesCascade, recomputeFirstMessageId } from "../db/queries/message-edits.js";
import { topicMessageIdsNewestFirst, topicRowHolderIds } from "../db/queries/topic-deletion.js";
import { deleteUserTopics, userTopicsForTopic } from "../db/queries/user-topics.js";
import { channelAudience } from "../lib/channels.js";
import { messageEventAudience } from "../lib/message-audience.js";
import { sendUserTopicEvents } from "./user-topics.js";

export async function doDeleteTopic(ctx: AppContext, realm: Realm, admin: User, channel: Channel, topic: string): Promise<{ complete: boolean }> {
  const started = Date.now();
  const { deleteTopicBatchSize: batchSize, deleteTopicBudgetMs: budget } = ctx.config;
  // Without shared history an administrator reaches only the messages they received.
  const onlyFor = channel.history_public_to_subscribers ? undefined : admin.id;
  for (;;) {
    const more = await withTransaction(ctx.db, async (tx) => {
      const ids = await topicMessageIdsNewestFirst(tx, realm.id, channel.recipient_id!, topic, batchSize + 1, onlyFor);
      const batch = ids.slice(0, batchSize);
      if (batch.length > 0) await deleteBatch(tx, ctx, realm, channel, topic, batch);
      return ids.length > batchSize;
    });
    if (!more) break;
    if (Date.now() - started >= budget) return { complete: false };
  }
  await withTransaction(ctx.db, (tx) => clearOrphanedPreferences(tx, ctx, realm, channel, topic));
  return { complete: true };
}

async function deleteBatch(tx: Tx, ctx: AppContext, realm: Realm, channel: Channel, topic: string, ids: number[]): Promise<void> {
  const recipients = await messageEventAudience(tx, realm.id, ids.map((id) => ({ id, channel_id: channel.id })), channel);
  await deleteMessagesCascade(tx, realm.id, ids);
  const messageIds = [...ids].sort((a, b) => a - b);
  sendEventOnCommit(tx, ctx, realm.id, { type: "delete_message", message_type: "stream", message_ids: messageIds, stream_id: channel.id, topic }, recipients);
  if (channel.first_message_id !== null && ids.includes(channel.first_message_id)) {
    const first = await recomputeFirstMessageId(tx, realm.id, channel.id);
    channel.first_message_id = first;
    const subscribers = (await subscriberIdsByChannel(tx, realm.id, [channel.id])).get(channel.id) ?? [];
    const audience = channelAudience(channel, await activeRealmUsers(tx, realm.id), subscribers);
    sendEventOnCommit(tx, ctx, realm.id, { type: "stream", op: "update", property: "first_message_id", value: first, stream_id: channel.id, name: channel.name }, audience);
  }
}

/** Users who can no longer read anything in the topic lose their preference for it. */
async function clearOrphanedPreferences(tx: Tx, ctx: AppContext, realm: Realm, channel: Channel, topic: string): Promise<void> {
  const prefs = await userTopicsForTopic(tx, realm.id, channel.id, topic);
  if (prefs.length === 0) return;
  const remaining = await topicMessageIdsNewestFirst(tx, realm.id, channel.recipient_id!, topic, 1);
  const keep = remaining.length === 0 ? new Set<number>() : await topicRowHolderIds(tx, realm.id, channel.recipient_id!, topic);
  const cleared = prefs.filter((p) => !keep.has(p.user_id));
  await deleteUserTopics(tx, realm.id, cleared.map((p) => p.id));
  const now = nowSeconds(ctx);
  for (const p of cleared) {
    await sendUserTopicEvents(tx, ctx, realm, p.user_id, { stream_id: channel.id, topic_name: p.topic_name, last_updated: now, visibility_policy: 0 });
  }
}
