/** Subscriptions: list, subscribe (creating channels), unsubscribe, channel members. */
import { channelGroupDefaults } from "../../actions/channels.js";
import { doSubscribe, doUnsubscribe } from "../../actions/subscriptions.js";
import { findChannelsByIds } from "../../db/queries/channels.js";
import { activeSubscriptionsOfUser, subscriberIdsByChannel } from "../../db/queries/subscriptions.js";
import { isUserInGroup } from "../../db/queries/user-groups.js";
import { ApiError } from "../../errors.js";
import { toApiSubscription } from "../../api-records/subscription.js";
import { MAX_CHANNEL_DESCRIPTION_LENGTH, accessChannelById, resolvePrincipals } from "../../lib/channels.js";
import { isGuest } from "../../lib/roles.js";
import { realmHost } from "../../lib/realm-host.js";
import { p, v } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

const notForGuests = () => new ApiError("Not allowed for guest users");

const principalsParam = () => p.json(v.oneOfTypes(v.list(v.int()), v.list(v.str()))).optional();

const hexColor = (value: unknown, name: string): string => {
  const s = v.str()(value, name);
  if (!/^#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/.test(s)) throw new ApiError(`${name} is not a valid hex color code`);
  return s;
};

async function inRealmGroup(req: AuthedRequest, groupId: number | null): Promise<boolean> {
  return groupId !== null && (await isUserInGroup(req.ctx.db, req.realm.id, req.user.id, groupId));
}

/** GET /api/v1/users/me/subscriptions */
async function listSubscriptions(req: AuthedRequest): Promise<ViewResult> {
  const { include_subscribers } = parseParams(req, { include_subscribers: p.bool().default(false) });
  const { db } = req.ctx;
  const subs = await activeSubscriptionsOfUser(db, req.user.realm_id, req.user.id);
  const channels = new Map((await findChannelsByIds(db, req.user.realm_id, subs.map((s) => s.channel_id))).map((c) => [c.id, c]));
  const subscribers = await subscriberIdsByChannel(db, req.user.realm_id, [...channels.keys()]);
  const groups = await channelGroupDefaults(db, req.user.realm_id);
  const subscriptions = subs
    .filter((s) => channels.get(s.channel_id) && !channels.get(s.channel_id)!.deactivated)
    .map((s) => toApiSubscription(s, channels.get(s.channel_id)!, subscribers.get(s.channel_id) ?? [], groups, include_subscribers));
  subscriptions.sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0));
  return { subscriptions };
}

/** POST /api/v1/users/me/subscriptions */
async function subscribe(req: AuthedRequest): Promise<ViewResult> {
  if (isGuest(req.user)) throw notForGuests();
  const params = parseParams(req, {
    subscriptions: p.json(
      v.list(
        v.dict({
          name: v.str(),
          color: v.optional(hexColor),
          description: v.optional(v.str({ maxLength: MAX_CHANNEL_DESCRIPTION_LENGTH })),
        }),
      ),
    ),
    invite_only: p.bool().default(false),
    is_web_public: p.bool().default(false),
    is_default_stream: p.bool().default(false),
    history_public_to_subscribers: p.bool().optional(),
    announce: p.bool().default(false),
    principals: principalsParam(),
    authorization_errors_fatal: p.bool().default(true),
  });
  const realm = req.realm;
  const channels = params.subscriptions.map((s) => ({
    name: s.name.trim(),
    color: s.color,
    // Upstream does not allow newlines in channel descriptions.
    description: s.description?.replace(/\n/g, " "),
  }));
  const principals = params.principals && params.principals.length > 0 ? await resolvePrincipals(req.ctx.db, req.user, realmHost(req.realm.string_id, req.ctx.config.externalHost), params.principals) : null;
  const result = await doSubscribe(req.ctx, realm, req.user, {
    channels,
    principals,
    inviteOnly: params.invite_only,
    isWebPublic: params.is_web_public,
    historyPublicToSubscribers: params.history_public_to_subscribers,
    isDefaultStream: params.is_default_stream,
    authorizationErrorsFatal: params.authorization_errors_fatal,
    announce: params.announce,
    canCreatePublic: await inRealmGroup(req, realm.can_create_public_channel_group_id),
    canCreatePrivate: await inRealmGroup(req, realm.can_create_private_channel_group_id),
    canAddSubscribers: await inRealmGroup(req, realm.can_add_subscribers_group_id),
    canCreateWebPublic: await inRealmGroup(req, realm.can_create_web_public_channel_group_id),
  });
  return { ...result };
}

/** DELETE /api/v1/users/me/subscriptions */
async function unsubscribe(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    subscriptions: p.json(v.list(v.str())),
    principals: principalsParam(),
  });
  const principals = params.principals && params.principals.length > 0 ? await resolvePrincipals(req.ctx.db, req.user, realmHost(req.realm.string_id, req.ctx.config.externalHost), params.principals) : null;
  return doUnsubscribe(req.ctx, req.realm, req.user, params.subscriptions.map((n) => n.trim()), principals);
}

/** GET /api/v1/streams/{stream_id}/members */
async function channelMembers(req: AuthedRequest): Promise<ViewResult> {
  const id = pathInt(req, "stream_id");
  parseParams(req, {});
  const { channel } = await accessChannelById(req.ctx.db, req.user, id, { metadataOnly: true });
  const subscribers = await subscriberIdsByChannel(req.ctx.db, req.user.realm_id, [channel.id]);
  return { subscribers: subscribers.get(channel.id) ?? [] };
}

export const routes = [
  route("GET", "/users/me/subscriptions", listSubscriptions),
  route("POST", "/users/me/subscriptions", subscribe),
  route("DELETE", "/users/me/subscriptions", unsubscribe),
  route("GET", "/streams/{stream_id:int}/members", channelMembers),
];
