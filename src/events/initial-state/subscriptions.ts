/**
 * subscriptions / unsubscribed / never_subscribed (event type "subscription") and
 * streams (event type "stream"). The realm's channels, their subscribers and each
 * channel's record as JSON are cached per realm (caches/register-parts.ts), the caller's
 * subscription rows per user (caches/subscription-rows.ts); per request the lists are put
 * together as JSON.
 */
import { channelGroupDefaults } from "../../actions/channels.js";
import { toApiChannel } from "../../api-records/channel.js";
import { subscriptionSettings } from "../../api-records/subscription.js";
import type { RealmChannels } from "../../caches/register-parts.js";
import type { SubscriptionRow } from "../../caches/subscription-rows.js";
import { listRealmChannels } from "../../db/queries/channels.js";
import { channelSubscriptionsOfUser, subscriberIdsByChannel } from "../../db/queries/subscriptions.js";
import type { Channel, Subscription } from "../../db/schema.js";
import { canAccessChannel, canAccessChannelMetadata } from "../../lib/channels.js";
import { RawJson, setRaw } from "./raw-json.js";
import type { StateContext, StateFetcher } from "./types.js";
import { loadOnce } from "./shared.js";

const byName = <T extends { name: string }>(a: T, b: T) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0);

async function loadRealmChannels(sc: StateContext): Promise<RealmChannels> {
  const { ctx, realm } = sc;
  const channels = await listRealmChannels(ctx.db, realm.id, { includeArchived: false });
  const subscribers = await subscriberIdsByChannel(ctx.db, realm.id, channels.map((c) => c.id));
  const groups = await channelGroupDefaults(ctx.db, realm.id);
  const json = new Map(channels.map((c) => [c.id, JSON.stringify(toApiChannel(c, (subscribers.get(c.id) ?? []).length, groups))]));
  return { channels, byName: [...channels].sort(byName), subscribers, groups, json };
}

/**
 * The caller's channel subscription rows, active or not (the unread state reads them too,
 * for muted channels), cached per user (caches/subscription-rows.ts).
 */
export const subscriptionRowsOf = (sc: StateContext): Promise<readonly SubscriptionRow[]> =>
  loadOnce(sc, "subscription_rows", async () =>
    sc.ctx.caches.subscriptionRows.get(sc.realm.id, sc.user.id, async () => (await channelSubscriptionsOfUser(sc.ctx.db, sc.realm.id, sc.user.id, { activeOnly: false })).map((row) => Object.freeze(row))),
  );

const load = (sc: StateContext) =>
  loadOnce(sc, "channels", async () => ({
    realm: await sc.ctx.caches.registerChannels.get(sc.realm.id, () => loadRealmChannels(sc)),
    subs: await subscriptionRowsOf(sc),
  }));


/** toApiSubscription's record as JSON: the channel's cached record, then the caller's own settings. */
function subscriptionJson(channelJson: string, sub: Subscription, subscribers: readonly number[], includeSubscribers: boolean): string {
  const own: Record<string, unknown> = subscriptionSettings(sub);
  if (includeSubscribers) own.subscribers = subscribers;
  return `${channelJson.slice(0, -1)},${JSON.stringify(own).slice(1)}`;
}

const withSubscribers = (channelJson: string, subscribers: readonly number[]) => `${channelJson.slice(0, -1)},"subscribers":${JSON.stringify(subscribers)}}`;

const jsonList = (records: string[]) => new RawJson([Buffer.from(`[${records.join(",")}]`)]);

/**
 * Lists made of channel records only (streams, never_subscribed), kept per cached realm
 * entry and list of channels: callers with the same channels (most members) share the bytes.
 */
const channelLists = new WeakMap<RealmChannels, Map<string, RawJson>>();

function channelList(realm: RealmChannels, channels: readonly Channel[], record: (json: string, channel: Channel) => string, variant: string): RawJson {
  let lists = channelLists.get(realm);
  if (!lists) channelLists.set(realm, (lists = new Map()));
  const key = `${variant}:${channels.map((c) => c.id).join(",")}`;
  let list = lists.get(key);
  if (!list) {
    if (lists.size >= 1000) lists.clear();
    lists.set(key, (list = jsonList(channels.map((c) => record(realm.json.get(c.id)!, c)))));
  }
  return list;
}

export const fetchSubscriptionState: StateFetcher = async (sc, state) => {
  const { realm, subs } = await load(sc);
  const include = sc.opts.includeSubscribers;
  const subByChannel = new Map(subs.map((s) => [s.channel_id, s]));
  const subscribed: string[] = [];
  const unsubscribed: string[] = [];
  const never: Channel[] = [];
  for (const channel of realm.byName) {
    const sub = subByChannel.get(channel.id);
    const ids = realm.subscribers.get(channel.id) ?? [];
    const json = realm.json.get(channel.id)!;
    if (sub && sub.active === 1) {
      subscribed.push(subscriptionJson(json, sub, ids, include));
    } else if (sub && canAccessChannelMetadata(sc.user, channel, false)) {
      // Past subscriptions are listed while the caller can still see the channel.
      unsubscribed.push(subscriptionJson(json, sub, ids, include));
    } else if (!sub && canAccessChannelMetadata(sc.user, channel, false)) {
      never.push(channel);
    }
  }
  setRaw(state, "subscriptions", jsonList(subscribed));
  setRaw(state, "unsubscribed", jsonList(unsubscribed));
  const neverRecord = include ? (json: string, c: Channel) => withSubscribers(json, realm.subscribers.get(c.id) ?? []) : (json: string) => json;
  setRaw(state, "never_subscribed", channelList(realm, never, neverRecord, include ? "never+subscribers" : "never"));
};

export const fetchStreamState: StateFetcher = async (sc, state) => {
  const { realm, subs } = await load(sc);
  const active = new Set(subs.filter((s) => s.active === 1).map((s) => s.channel_id));
  const accessible = realm.channels.filter((c) => canAccessChannel(sc.user, c, active.has(c.id)));
  setRaw(state, "streams", channelList(realm, accessible, (json) => json, "streams"));
};
