/**
 * Changing one's per-channel settings (upstream do_change_subscription_property). All
 * changes of a request are checked before any is stored, then stored in one transaction;
 * each sends `subscription` update events to the user alone: a change of muting first
 * sends the legacy `in_home_view` event, then the `is_muted` one, as upstream.
 */
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { activeSubscription, setSubscriptionColumn } from "../db/queries/subscription-properties.js";
import { ApiError } from "../errors.js";
import { sendEventOnCommit } from "../events/send.js";
import { accessChannelById } from "../lib/channels.js";
import { checkSubscriptionValue, isSubscriptionProperty, storedSubscriptionValue } from "../lib/subscription-properties.js";

export interface SubscriptionChange {
  stream_id: number;
  property: string;
  value: boolean | string;
}

export async function doChangeSubscriptionProperties(ctx: AppContext, realm: Realm, user: User, changes: readonly SubscriptionChange[]): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const checked = [];
    // Upstream's order for each change: the property, the channel, the subscription, the value.
    for (const change of changes) {
      if (!isSubscriptionProperty(change.property)) throw new ApiError(`Unknown subscription property: ${change.property}`);
      const { channel } = await accessChannelById(tx, user, change.stream_id);
      const sub = channel.recipient_id === null ? undefined : await activeSubscription(tx, realm.id, user.id, channel.recipient_id);
      if (!sub) throw new ApiError(`Not subscribed to channel ID ${change.stream_id}`);
      const value = checkSubscriptionValue(change.property, change.value);
      checked.push({ subId: sub.id, streamId: channel.id, ...storedSubscriptionValue(change.property, value) });
    }
    for (const c of checked) {
      await setSubscriptionColumn(tx, realm.id, c.subId, c.column, typeof c.value === "boolean" ? (c.value ? 1 : 0) : c.value);
      const update = (property: string, value: boolean | string) => ({ type: "subscription", op: "update", property, value, stream_id: c.streamId });
      if (c.column === "is_muted") sendEventOnCommit(tx, ctx, realm.id, update("in_home_view", !c.value), [user.id]);
      sendEventOnCommit(tx, ctx, realm.id, update(c.column, c.value), [user.id]);
    }
  });
}
