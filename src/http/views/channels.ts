/** Channels: list, fetch, look up by name, update, archive. */
import { channelGroupDefaults, doArchiveChannel, doUpdateChannel, type ChannelChanges } from "../../actions/channels.js";
import { defaultChannelIds, findChannelByName, listRealmChannels } from "../../db/queries/channels.js";
import { subscribedChannelIds, subscriberCounts } from "../../db/queries/subscriptions.js";
import { ApiError } from "../../errors.js";
import { toApiChannel } from "../../api-records/channel.js";
import { isUserInGroup } from "../../db/queries/user-groups.js";
import {
  MAX_CHANNEL_DESCRIPTION_LENGTH,
  accessChannelById,
  accessChannelByName,
  accessChannelForAdministration,
  canAccessChannel,
  canAccessChannelMetadata,
  checkChannelName,
  checkWebPublicAllowed,
} from "../../lib/channels.js";
import { isAdmin, isGuest } from "../../lib/roles.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** GET /api/v1/streams */
async function listChannels(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    include_public: p.bool().default(true),
    include_web_public: p.bool().default(false),
    include_subscribed: p.bool().default(true),
    exclude_archived: p.bool().default(true),
    include_all: p.bool().default(false),
    include_all_active: p.bool().default(false),
    include_default: p.bool().default(false),
    include_owner_subscribed: p.bool().default(false),
    include_can_access_content: p.bool().default(false),
  });
  const includeAll = params.include_all || params.include_all_active;
  if (includeAll && !isAdmin(req.user)) throw new ApiError("User not authorized for this query");
  const { db } = req.ctx;
  const user = req.user;
  const channels = await listRealmChannels(db, user.realm_id, { includeArchived: !params.exclude_archived });
  const subscribed = await subscribedChannelIds(db, user.realm_id, user.id);
  const defaults = new Set(await defaultChannelIds(db, user.realm_id));
  let ownerSubscribed = new Set<number>();
  if (params.include_owner_subscribed && user.is_bot && user.bot_owner_id !== null) {
    ownerSubscribed = await subscribedChannelIds(db, user.realm_id, user.bot_owner_id);
  }
  const selected = channels.filter((c) => {
    const isSub = subscribed.has(c.id);
    if (!canAccessChannelMetadata(user, c, isSub)) return false;
    if (includeAll) return true;
    // Guests never list public channels they are not subscribed to.
    if (params.include_public && !c.invite_only && !isGuest(user)) return true;
    if (params.include_web_public && c.is_web_public) return true;
    if (params.include_subscribed && isSub) return true;
    if (params.include_default && defaults.has(c.id) && canAccessChannel(user, c, isSub)) return true;
    if (params.include_can_access_content && canAccessChannel(user, c, isSub)) return true;
    if (ownerSubscribed.has(c.id) && canAccessChannel(user, c, isSub)) return true;
    return false;
  });
  selected.sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : a.id - b.id));
  const counts = await subscriberCounts(db, user.realm_id, selected.map((c) => c.id));
  const groups = await channelGroupDefaults(db, user.realm_id);
  const streams = selected.map((c) => {
    const record: Record<string, unknown> = { ...toApiChannel(c, counts.get(c.id) ?? 0, groups) };
    if (params.include_default) record.is_default = defaults.has(c.id);
    return record;
  });
  return { streams };
}

/** GET /api/v1/streams/{stream_id} */
async function getChannel(req: AuthedRequest): Promise<ViewResult> {
  const id = pathInt(req, "stream_id");
  parseParams(req, {});
  const { channel } = await accessChannelById(req.ctx.db, req.user, id, { metadataOnly: true, allowArchived: true });
  const counts = await subscriberCounts(req.ctx.db, req.user.realm_id, [channel.id]);
  return { stream: toApiChannel(channel, counts.get(channel.id) ?? 0, await channelGroupDefaults(req.ctx.db, req.user.realm_id)) };
}

/** GET /api/v1/get_stream_id */
async function getChannelId(req: AuthedRequest): Promise<ViewResult> {
  const { stream } = parseParams(req, { stream: p.str() });
  const { channel } = await accessChannelByName(req.ctx.db, req.user, stream);
  return { stream_id: channel.id };
}

/** PATCH /api/v1/streams/{stream_id} */
async function updateChannel(req: AuthedRequest): Promise<ViewResult> {
  const id = pathInt(req, "stream_id");
  const params = parseParams(req, {
    description: p.str({ maxLength: MAX_CHANNEL_DESCRIPTION_LENGTH }).optional(),
    is_private: p.bool().optional(),
    is_default_stream: p.bool().optional(),
    history_public_to_subscribers: p.bool().optional(),
    is_web_public: p.bool().optional(),
    new_name: p.str().optional(),
  });
  const { db } = req.ctx;
  const { channel, subscribed } = await accessChannelForAdministration(db, req.user, id);
  // The proposed permission state must be coherent (upstream's checks and order).
  const isDefaultNow = (await defaultChannelIds(db, req.realm.id)).includes(channel.id);
  const isPrivate = params.is_private ?? channel.invite_only === 1;
  const isWebPublic = params.is_web_public ?? channel.is_web_public === 1;
  const isDefault = params.is_default_stream ?? isDefaultNow;
  const history =
    params.history_public_to_subscribers ?? (params.is_private !== undefined ? !params.is_private : channel.history_public_to_subscribers === 1);
  if (isWebPublic && !history) throw new ApiError("Invalid parameters");
  if (isWebPublic && isPrivate) throw new ApiError("Invalid parameters");
  if (!isPrivate && !history) throw new ApiError("Invalid parameters");
  if (isPrivate && isDefault) throw new ApiError("A default channel cannot be private.");
  if (!isPrivate && req.realm.moderation_request_channel_id === channel.id) throw new ApiError("Moderation request channel must be private.");
  if (params.is_private !== undefined && !canAccessChannel(req.user, channel, subscribed)) throw new ApiError("Channel content access is required.");
  if (params.is_private !== undefined) {
    const group = params.is_private ? req.realm.can_create_private_channel_group_id : req.realm.can_create_public_channel_group_id;
    if (group === null || !(await isUserInGroup(db, req.realm.id, req.user.id, group))) throw new ApiError("Insufficient permission");
  }
  if (params.is_web_public) await checkWebPublicAllowed(db, req.realm, req.user);
  const changes: ChannelChanges = {};
  if (params.is_private !== undefined || params.is_web_public !== undefined || params.history_public_to_subscribers !== undefined) {
    changes.inviteOnly = isPrivate;
    changes.isWebPublic = isWebPublic;
    changes.historyPublicToSubscribers = history;
  }
  if (params.is_default_stream !== undefined) changes.isDefault = params.is_default_stream;
  // Upstream does not allow newlines in channel descriptions.
  if (params.description !== undefined) changes.description = params.description.replace(/\n/g, " ");
  if (params.new_name !== undefined) {
    const newName = params.new_name.trim();
    if (newName === channel.name) throw new ApiError("Channel already has that name.");
    checkChannelName(newName);
    // Only a change of case may keep the name of an existing channel (this one).
    if (newName.toLowerCase() !== channel.name.toLowerCase() && (await findChannelByName(db, req.realm.id, newName))) {
      throw new ApiError(`Channel '${newName}' already exists`);
    }
    changes.name = newName;
  }
  await doUpdateChannel(req.ctx, req.realm, channel, changes);
  return {};
}

/** DELETE /api/v1/streams/{stream_id} (archive) */
async function archiveChannel(req: AuthedRequest): Promise<ViewResult> {
  const id = pathInt(req, "stream_id");
  parseParams(req, {});
  const { channel } = await accessChannelForAdministration(req.ctx.db, req.user, id);
  if (channel.deactivated) throw new ApiError("Channel is already deactivated");
  await doArchiveChannel(req.ctx, req.realm, channel);
  return {};
}

export const routes = [
  route("GET", "/streams", listChannels),
  route("GET", "/streams/{stream_id:int}", getChannel),
  route("GET", "/get_stream_id", getChannelId),
  route("PATCH", "/streams/{stream_id:int}", updateChannel),
  route("DELETE", "/streams/{stream_id:int}", archiveChannel),
];
