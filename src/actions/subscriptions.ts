/** Subscribing and unsubscribing users (bulk), default channels for new users, and their events. */
import type { AppContext } from "../context.js";
import { withTransaction, type Tx } from "../db/tx.js";
import type { Channel, Realm, User } from "../db/schema.js";
import { activeRealmUsers } from "../db/queries/users.js";
import { addDefaultChannel, defaultChannelIds, findChannelsByIds, findChannelsByNames } from "../db/queries/channels.js";
import {
  countActiveSubscriptionsOfUsers,
  insertSubscriptions,
  setSubscriptionsActive,
  subscribedChannelIds,
  subscriberIdsByChannel,
  subscriptionRows,
} from "../db/queries/subscriptions.js";
import { ApiError } from "../errors.js";
import { isAdmin, isGuest } from "../lib/roles.js";
import { INVALID_CHANNEL_ID, canAccessChannel, canAccessChannelMetadata, channelAudience, checkChannelName } from "../lib/channels.js";
import { toApiSubscription } from "../api-records/subscription.js";
import { toApiChannel } from "../api-records/channel.js";
import { sendEventOnCommit } from "../events/send.js";
import { channelGroupDefaults, createChannelsInTx, type NewChannelSpec } from "./channels.js";
import { internalSendMessage } from "./internal-messages.js";
import { subscriptionNotices } from "./subscription-notices.js";

/** Upstream's palette for new subscriptions. */
export const SUBSCRIPTION_COLORS = [
  "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
  "#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
  "#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
] as const;

export interface SubPair {
  user: User;
  channel: Channel;
}

/**
 * Subscribes every user to every channel (reactivating old rows), in the caller's
 * transaction. Events: `subscription` add to each newly subscribed user, and
 * `subscription` peer_add to the other users who may see each channel's subscribers.
 */
export async function bulkAddSubscriptionsInTx(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  channels: readonly Channel[],
  users: readonly User[],
  colors: ReadonlyMap<string, string> = new Map(),
  /** Channels created in this transaction: their creation event already reached these users. */
  createdChannelIds: ReadonlySet<number> = new Set(),
): Promise<{ subscribed: SubPair[]; alreadySubscribed: SubPair[] }> {
  const subscribed: SubPair[] = [];
  const alreadySubscribed: SubPair[] = [];
  if (channels.length === 0 || users.length === 0) return { subscribed, alreadySubscribed };
  const existing = await subscriptionRows(tx, realm.id, users.map((u) => u.id), channels.map((c) => c.recipient_id!));
  const byKey = new Map(existing.map((r) => [`${r.user_id}:${r.recipient_id}`, r]));
  const counts = await countActiveSubscriptionsOfUsers(tx, realm.id, users.map((u) => u.id));
  const toInsert: Array<{ realm_id: number; user_id: number; recipient_id: number; color: string }> = [];
  const toReactivate: number[] = [];
  for (const user of users) {
    for (const channel of channels) {
      const row = byKey.get(`${user.id}:${channel.recipient_id}`);
      if (row?.active) {
        alreadySubscribed.push({ user, channel });
        continue;
      }
      subscribed.push({ user, channel });
      if (row) {
        toReactivate.push(row.id);
      } else {
        const n = counts.get(user.id) ?? 0;
        counts.set(user.id, n + 1);
        const color = colors.get(channel.name) ?? SUBSCRIPTION_COLORS[n % SUBSCRIPTION_COLORS.length]!;
        toInsert.push({ realm_id: realm.id, user_id: user.id, recipient_id: channel.recipient_id!, color });
      }
    }
  }
  await insertSubscriptions(tx, toInsert);
  await setSubscriptionsActive(tx, realm.id, toReactivate, true);
  if (subscribed.length > 0) await sendAddEvents(tx, ctx, realm, subscribed, createdChannelIds);
  return { subscribed, alreadySubscribed };
}

async function sendAddEvents(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  subscribed: readonly SubPair[],
  createdChannelIds: ReadonlySet<number>,
): Promise<void> {
  const channelIds = [...new Set(subscribed.map((p) => p.channel.id))];
  const subscribers = await subscriberIdsByChannel(tx, realm.id, channelIds);
  const groups = await channelGroupDefaults(tx, realm.id);
  // A user who could not see the channel before (private channel, or a guest joining a
  // public one) first learns of it through a `stream` create event, as upstream does.
  for (const p of subscribed) {
    if (createdChannelIds.has(p.channel.id) || canAccessChannelMetadata(p.user, p.channel, false)) continue;
    const event = { type: "stream", op: "create", streams: [toApiChannel(p.channel, subscribers.get(p.channel.id)?.length ?? 0, groups)] };
    sendEventOnCommit(tx, ctx, realm.id, event, [p.user.id]);
  }
  const rows = await subscriptionRows(tx, realm.id, [...new Set(subscribed.map((p) => p.user.id))], subscribed.map((p) => p.channel.recipient_id!));
  const rowByKey = new Map(rows.map((r) => [`${r.user_id}:${r.recipient_id}`, r]));
  const byUser = new Map<number, SubPair[]>();
  for (const p of subscribed) byUser.set(p.user.id, [...(byUser.get(p.user.id) ?? []), p]);
  for (const [userId, pairs] of byUser) {
    const subscriptions = pairs.map((p) =>
      toApiSubscription(rowByKey.get(`${userId}:${p.channel.recipient_id}`)!, p.channel, subscribers.get(p.channel.id) ?? [], groups, true),
    );
    // Recipient: the subscribed user only (their own subscription settings).
    sendEventOnCommit(tx, ctx, realm.id, { type: "subscription", op: "add", subscriptions }, [userId]);
  }
  // The users just added received the full subscriber list in their add event.
  await sendPeerSubscriberEvents(tx, ctx, realm, "peer_add", subscribed);
}

/**
 * peer_add / peer_remove (upstream send_peer_subscriber_events), after the change is
 * written. Recipients: the users who may see each channel's subscribers — every active
 * user for web-public channels, active non-guests plus subscribers for public ones,
 * subscribers plus realm administrators for private ones — never the altered users
 * themselves. Public channels with the same altered users share one event per audience
 * (web-public; public without guest subscribers), as upstream batches them.
 */
export async function sendPeerSubscriberEvents(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  op: "peer_add" | "peer_remove",
  pairs: ReadonlyArray<{ user: Pick<User, "id">; channel: Channel }>,
): Promise<void> {
  if (pairs.length === 0) return;
  const byChannel = new Map<number, { channel: Channel; altered: Set<number> }>();
  for (const p of pairs) {
    const entry = byChannel.get(p.channel.id) ?? { channel: p.channel, altered: new Set<number>() };
    entry.altered.add(p.user.id);
    byChannel.set(p.channel.id, entry);
  }
  const users = await activeRealmUsers(tx, realm.id);
  const subscribers = await subscriberIdsByChannel(tx, realm.id, [...byChannel.keys()]);
  const sorted = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);
  const send = (streamIds: number[], altered: Set<number>, audience: number[]) => {
    const recipients = audience.filter((id) => !altered.has(id));
    if (recipients.length === 0) return;
    sendEventOnCommit(tx, ctx, realm.id, { type: "subscription", op, stream_ids: sorted(streamIds), user_ids: sorted(altered) }, recipients);
  };
  const publicGroups = new Map<string, { altered: Set<number>; webPublic: number[]; noGuests: number[] }>();
  const guestSubscribed = (channelId: number) => {
    const subs = new Set(subscribers.get(channelId) ?? []);
    return users.some((u) => subs.has(u.id) && isGuest(u));
  };
  for (const { channel, altered } of byChannel.values()) {
    if (channel.invite_only) {
      send([channel.id], altered, channelAudience(channel, users, subscribers.get(channel.id) ?? []));
      continue;
    }
    const key = sorted(altered).join(",");
    const group = publicGroups.get(key) ?? { altered, webPublic: [], noGuests: [] };
    publicGroups.set(key, group);
    if (channel.is_web_public) group.webPublic.push(channel.id);
    else if (!guestSubscribed(channel.id)) group.noGuests.push(channel.id);
    // A public channel with guest subscribers has its own audience.
    else send([channel.id], altered, channelAudience(channel, users, subscribers.get(channel.id) ?? []));
  }
  const everyone = users.map((u) => u.id);
  const nonGuests = users.filter((u) => !isGuest(u)).map((u) => u.id);
  for (const group of publicGroups.values()) {
    if (group.webPublic.length > 0) send(group.webPublic, group.altered, everyone);
    if (group.noGuests.length > 0) send(group.noGuests, group.altered, nonGuests);
  }
}

/**
 * A user's (de)activation changes the subscriber lists of every channel they are
 * subscribed to (their subscriptions themselves stay): peer_remove on deactivation,
 * peer_add on reactivation, as upstream. Called after the user row is updated.
 */
export async function sendPeerEventsForUserActivation(tx: Tx, ctx: AppContext, realm: Realm, user: User, active: boolean): Promise<void> {
  const channelIds = [...(await subscribedChannelIds(tx, realm.id, user.id))];
  const channels = (await findChannelsByIds(tx, realm.id, channelIds)).filter((c) => !c.deactivated);
  await sendPeerSubscriberEvents(tx, ctx, realm, active ? "peer_add" : "peer_remove", channels.map((channel) => ({ user, channel })));
}

/**
 * Unsubscribes every user from every channel. Events: `subscription` remove to each
 * removed user, peer_remove to the users who may still see each channel's subscribers.
 */
export async function bulkRemoveSubscriptionsInTx(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  channels: readonly Channel[],
  users: readonly User[],
): Promise<{ removed: SubPair[]; notRemoved: SubPair[] }> {
  const removed: SubPair[] = [];
  const notRemoved: SubPair[] = [];
  const existing = await subscriptionRows(tx, realm.id, users.map((u) => u.id), channels.map((c) => c.recipient_id!));
  const byKey = new Map(existing.map((r) => [`${r.user_id}:${r.recipient_id}`, r]));
  const ids: number[] = [];
  for (const user of users) {
    for (const channel of channels) {
      const row = byKey.get(`${user.id}:${channel.recipient_id}`);
      if (row?.active) {
        removed.push({ user, channel });
        ids.push(row.id);
      } else {
        notRemoved.push({ user, channel });
      }
    }
  }
  await setSubscriptionsActive(tx, realm.id, ids, false);
  if (removed.length === 0) return { removed, notRemoved };
  const byUser = new Map<number, Channel[]>();
  for (const p of removed) byUser.set(p.user.id, [...(byUser.get(p.user.id) ?? []), p.channel]);
  for (const [userId, chans] of byUser) {
    const event = { type: "subscription", op: "remove", subscriptions: chans.map((c) => ({ name: c.name, stream_id: c.id })) };
    // Recipient: the unsubscribed user only.
    sendEventOnCommit(tx, ctx, realm.id, event, [userId]);
  }
  // A user who can no longer see a channel (private, or public for a guest) is told it is gone.
  const lostIds = removed.filter((p) => !canAccessChannelMetadata(p.user, p.channel, false));
  if (lostIds.length > 0) {
    const groups = await channelGroupDefaults(tx, realm.id);
    const counts = await subscriberIdsByChannel(tx, realm.id, [...new Set(lostIds.map((p) => p.channel.id))]);
    for (const p of lostIds) {
      const event = {
        type: "stream",
        op: "delete",
        streams: [toApiChannel(p.channel, counts.get(p.channel.id)?.length ?? 0, groups)],
        stream_ids: [p.channel.id],
      };
      sendEventOnCommit(tx, ctx, realm.id, event, [p.user.id]);
    }
  }
  // Recipients: users who may still see the channel's subscribers, minus those just removed.
  await sendPeerSubscriberEvents(tx, ctx, realm, "peer_remove", removed);
  return { removed, notRemoved };
}

/** Creates a channel and subscribes users in one transaction (tests, administration tools). */
export async function doCreateChannel(
  ctx: AppContext,
  realm: Realm,
  creator: User | null,
  spec: NewChannelSpec & { subscribers: readonly User[] },
): Promise<Channel> {
  return withTransaction(ctx.db, async (tx) => {
    const [channel] = await createChannelsInTx(tx, ctx, realm, creator, [spec], spec.subscribers.map((u) => u.id));
    await bulkAddSubscriptionsInTx(tx, ctx, realm, [channel!], spec.subscribers, new Map(), new Set([channel!.id]));
    return channel!;
  });
}

/** Hook: new human users are subscribed to the realm's default channels. */
export async function subscribeToDefaultChannels(tx: Tx, ctx: AppContext, realm: Realm, user: User): Promise<void> {
  if (user.is_bot) return;
  const channels = (await findChannelsByIds(tx, realm.id, await defaultChannelIds(tx, realm.id))).filter((c) => !c.deactivated);
  await bulkAddSubscriptionsInTx(tx, ctx, realm, channels, [user]);
}

export interface SubscribeRequest {
  /** Stripped names with optional descriptions and colors, in request order. */
  channels: Array<{ name: string; description?: string; color?: string }>;
  /** Users to subscribe; null: the caller. */
  principals: User[] | null;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers?: boolean;
  isDefaultStream: boolean;
  authorizationErrorsFatal: boolean;
  /** Permission facts the view established (group membership). */
  canCreatePublic: boolean;
  canCreatePrivate: boolean;
  canAddSubscribers: boolean;
  canCreateWebPublic: boolean;
  /** Announce created channels in the realm's new-channel announcements channel. */
  announce?: boolean;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
}

/**
 * POST /users/me/subscriptions semantics (upstream add_subscriptions_backend): names are
 * checked, missing channels created (with creation permission), existing channels the
 * caller cannot see are "unauthorized", and everyone named is subscribed — one transaction.
 */
export async function doSubscribe(ctx: AppContext, realm: Realm, actor: User, req: SubscribeRequest): Promise<SubscribeResult> {
  const { result, notices } = await withTransaction(ctx.db, async (tx) => {
    const names = [...new Set(req.channels.map((c) => c.name))];
    for (const name of names) checkChannelName(name);
    const existing = await findChannelsByNames(tx, realm.id, names);
    const byLower = new Map(existing.map((c) => [c.name.toLowerCase(), c]));
    const existingInOrder: Channel[] = [];
    const missing: Array<{ name: string; description?: string }> = [];
    const seenMissing = new Set<string>();
    for (const spec of req.channels) {
      const found = byLower.get(spec.name.toLowerCase());
      if (found) {
        if (!existingInOrder.includes(found)) existingInOrder.push(found);
      } else if (!seenMissing.has(spec.name.toLowerCase())) {
        seenMissing.add(spec.name.toLowerCase());
        missing.push(spec);
      }
    }
    if (missing.length > 0) {
      if (req.inviteOnly && !req.canCreatePrivate) throw new ApiError("Insufficient permission");
      if (!req.inviteOnly && !req.canCreatePublic) throw new ApiError("Insufficient permission");
      if (req.isDefaultStream && !isAdmin(actor)) throw new ApiError("Insufficient permission");
      if (req.inviteOnly && req.isDefaultStream) throw new ApiError("A default channel cannot be private.");
      if (req.isWebPublic) {
        if (!realm.enable_spectator_access) throw new ApiError("Web-public channels are not enabled.");
        if (!req.canCreateWebPublic) throw new ApiError("Insufficient permission");
      }
    }
    const subscribingOthers = req.principals !== null && req.principals.some((u) => u.id !== actor.id);
    const mySubs = await subscribedChannelIds(tx, realm.id, actor.id);
    const authorized: Channel[] = [];
    const unauthorized: Channel[] = [];
    for (const channel of existingInOrder) {
      // Archived channels cannot be joined; others need content access, as upstream: an
      // administrator sees a private channel's metadata but may not join it or add others.
      if (!channel.deactivated && canAccessChannel(actor, channel, mySubs.has(channel.id))) authorized.push(channel);
      else unauthorized.push(channel);
    }
    if (unauthorized.length > 0 && req.authorizationErrorsFatal) {
      throw new ApiError(`Unable to access channel (${unauthorized[0]!.name}).`);
    }
    if (subscribingOthers && authorized.length > 0 && !req.canAddSubscribers && !isAdmin(actor)) {
      throw new ApiError("Insufficient permission");
    }
    const users = req.principals ?? [actor];
    const created = await createChannelsInTx(
      tx,
      ctx,
      realm,
      actor,
      missing.map((m) => ({
        name: m.name,
        description: m.description ?? "",
        inviteOnly: req.inviteOnly,
        isWebPublic: req.isWebPublic,
        historyPublicToSubscribers: req.historyPublicToSubscribers,
      })),
      users.map((u) => u.id),
    );
    if (req.isDefaultStream) for (const c of created) await addDefaultChannel(tx, realm.id, c.id);
    const colors = new Map(req.channels.filter((c) => c.color !== undefined).map((c) => [c.name, c.color!]));
    const { subscribed, alreadySubscribed } = await bulkAddSubscriptionsInTx(
      tx,
      ctx,
      realm,
      [...authorized, ...created],
      users,
      colors,
      new Set(created.map((c) => c.id)),
    );
    const result: SubscribeResult = { subscribed: groupNames(subscribed), already_subscribed: groupNames(alreadySubscribed) };
    if (!req.authorizationErrorsFatal) result.unauthorized = unauthorized.map((c) => c.name);
    return { result, notices: await subscriptionNotices(tx, realm, actor, subscribed, created, req.announce ?? false) };
  });
  // The notification bot's notices, once the subscriptions are committed.
  for (const notice of notices) await internalSendMessage(ctx, realm, notice);
  return result;
}

function groupNames(pairs: readonly SubPair[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { user, channel } of pairs) (out[String(user.id)] ??= []).push(channel.name);
  return out;
}

/**
 * DELETE /users/me/subscriptions semantics (upstream remove_subscriptions_backend):
 * every name must be a channel the caller can see; removing others needs administration.
 */
export async function doUnsubscribe(
  ctx: AppContext,
  realm: Realm,
  actor: User,
  names: readonly string[],
  principals: User[] | null,
): Promise<{ removed: string[]; not_removed: string[] }> {
  return withTransaction(ctx.db, async (tx) => {
    const unique = [...new Set(names)];
    for (const name of unique) checkChannelName(name);
    const existing = await findChannelsByNames(tx, realm.id, unique);
    const byLower = new Map(existing.map((c) => [c.name.toLowerCase(), c]));
    const missing = unique.filter((n) => !byLower.has(n.toLowerCase()));
    if (missing.length > 0) throw new ApiError(`Channel(s) (${missing.join(", ")}) do not exist`);
    const channels = [...new Map(unique.map((n) => byLower.get(n.toLowerCase())!).map((c) => [c.id, c])).values()];
    const unsubscribingOthers = principals !== null && principals.some((u) => !(u.id === actor.id || (u.is_bot && u.bot_owner_id === actor.id)));
    if (unsubscribingOthers) {
      const mySubs = await subscribedChannelIds(tx, realm.id, actor.id);
      for (const channel of channels) {
        if (isAdmin(actor)) continue;
        if (canAccessChannel(actor, channel, mySubs.has(channel.id))) throw new ApiError("Insufficient permission");
        throw new ApiError(INVALID_CHANNEL_ID);
      }
    }
    const { removed, notRemoved } = await bulkRemoveSubscriptionsInTx(tx, ctx, realm, channels, principals ?? [actor]);
    return { removed: removed.map((p) => p.channel.name), not_removed: notRemoved.map((p) => p.channel.name) };
  });
}
