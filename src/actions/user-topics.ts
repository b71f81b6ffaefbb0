/**
 * Topic visibility policies (upstream do_set_user_topic_visibility_policy): 0 none,
 * 1 muted, 2 unmuted, 3 followed. Each change sends the user the legacy `muted_topics`
 * list and a `user_topic` event; setting the current policy again changes nothing and
 * sends nothing.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import type { Channel, Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { deleteUserTopics, findUserTopic, mutedTopicsWithChannelNames, upsertUserTopic } from "../db/queries/user-topics.js";

export const VISIBILITY_POLICIES = [0, 1, 2, 3] as const;

export async function doSetUserTopicPolicy(ctx: AppContext, realm: Realm, user: User, channel: Channel, topic: string, policy: number): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const existing = await findUserTopic(tx, realm.id, user.id, channel.id, topic);
    if ((existing?.visibility_policy ?? 0) === policy) return;
    const now = nowSeconds(ctx);
    if (policy === 0) await deleteUserTopics(tx, realm.id, [existing!.id]);
    else await upsertUserTopic(tx, { realm_id: realm.id, user_id: user.id, channel_id: channel.id, topic_name: topic, visibility_policy: policy, last_updated: now });
    await sendUserTopicEvents(tx, ctx, realm, user.id, { stream_id: channel.id, topic_name: topic, last_updated: now, visibility_policy: policy });
  });
}

/** The legacy muted_topics list, then the user_topic event, to the user's own clients. */
export async function sendUserTopicEvents(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  userId: number,
  change: { stream_id: number; topic_name: string; last_updated: number; visibility_policy: number },
): Promise<void> {
  sendEventOnCommit(tx, ctx, realm.id, { type: "muted_topics", muted_topics: await mutedTopicsWithChannelNames(tx, realm.id, userId) }, [userId]);
  sendEventOnCommit(tx, ctx, realm.id, { type: "user_topic", ...change }, [userId]);
}
