/**
 * subscriptions / unsubscribed / never_subscribed (event type "subscription") and
 * streams (event type "stream"), from four batched queries.
 */
import { channelGroupDefaults } from "../../actions/channels.js";
import { toApiChannel } from "../../api-records/channel.js";
import { toApiSubscription } from "../../api-records/subscription.js";
import { listRealmChannels } from "../../db/queries/channels.js";
import { channelSubscriptionsOfUser } from "../../db/queries/subscriptions.js";
import { subscriberIdsByChannel } from "../../db/queries/subscriptions.js";
import { canAccessChannel, canAccessChannelMetadata } from "../../lib/channels.js";
import type { StateContext, StateFetcher } from "./types.js";
import { loadOnce } from "./shared.js";

const load = (sc: StateContext) => loadOnce(sc, "channels", () => loadChannels(sc));

async function loadChannels(sc: StateContext) {
  const { ctx, realm, user } = sc;
  const channels = await listRealmChannels(ctx.db, realm.id, { includeArchived: false });
  const subs = await channelSubscriptionsOfUser(ctx.db, realm.id, user.id, { activeOnly: false });
  // Cached per realm: every non-archived channel's subscribers (flushed by any subscription, user or channel change).
  const subscribers = await ctx.caches.channelSubscribers.get(realm.id, () => subscriberIdsByChannel(ctx.db, realm.id, channels.map((c) => c.id)));
  const groups = await channelGroupDefaults(ctx.db, realm.id);
  return { channels, subs, subscribers, groups };
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0);

export const fetchSubscriptionState: StateFetcher = async (sc, state) => {
  const { channels, subs, subscribers, groups } = await load(sc);
  const subByChannel = new Map(subs.map((s) => [s.channel_id, s]));
  const subscribed: unknown[] = [];
  const unsubscribed: unknown[] = [];
  const never: Array<Record<string, unknown> & { name: string }> = [];
  for (const channel of [...channels].sort(byName)) {
    const sub = subByChannel.get(channel.id);
    const ids = subscribers.get(channel.id) ?? [];
    const active = sub?.active === 1;
    if (sub && active) {
      subscribed.push(toApiSubscription(sub, channel, ids, groups, sc.opts.includeSubscribers));
    } else if (sub && canAccessChannelMetadata(sc.user, channel, false)) {
      // Past subscriptions are listed while the caller can still see the channel.
      unsubscribed.push(toApiSubscription(sub, channel, ids, groups, sc.opts.includeSubscribers));
    } else if (!sub && canAccessChannelMetadata(sc.user, channel, false)) {
      const record: Record<string, unknown> & { name: string } = { ...toApiChannel(channel, ids.length, groups) };
      if (sc.opts.includeSubscribers) record.subscribers = [...ids];
      never.push(record);
    }
  }
  state.subscriptions = subscribed;
  state.unsubscribed = unsubscribed;
  state.never_subscribed = never;
};

export const fetchStreamState: StateFetcher = async (sc, state) => {
  const { channels, subs, subscribers, groups } = await load(sc);
  const active = new Set(subs.filter((s) => s.active === 1).map((s) => s.channel_id));
  state.streams = channels
    .filter((c) => canAccessChannel(sc.user, c, active.has(c.id)))
    .sort((a, b) => a.id - b.id)
    .map((c) => toApiChannel(c, (subscribers.get(c.id) ?? []).length, groups));
};
