/** GET /users/me/{stream_id}/topics (upstream get_topics_backend). */
import { channelTopicRows } from "../../db/queries/channel-topics.js";
import { findChannelById } from "../../db/queries/channels.js";
import { ApiError } from "../../errors.js";
import { accessChannelById, canSeeChannelHistory, INVALID_CHANNEL_ID } from "../../lib/channels.js";
import { notLoggedIn, spectatorsAllowed } from "../../lib/message-access.js";
import { topicHistory } from "../../lib/topic-history.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { ApiRequest, ViewResult } from "../request.js";
import { publicRoute } from "../route.js";

/** GET /api/v1/users/me/{stream_id}/topics (spectators: web-public channels only) */
async function getTopics(req: ApiRequest): Promise<ViewResult> {
  const streamId = pathInt(req, "stream_id");
  const { allow_empty_topic_name } = parseParams(req, { allow_empty_topic_name: p.bool().default(false) });
  let rows;
  if (req.user === null) {
    if (!spectatorsAllowed(req.realm)) throw notLoggedIn();
    const channel = await findChannelById(req.ctx.db, req.realm.id, streamId);
    if (!channel || !channel.is_web_public) throw new ApiError(INVALID_CHANNEL_ID);
    rows = await channelTopicRows(req.ctx.db, req.realm.id, channel.id);
  } else {
    const { channel, subscribed } = await accessChannelById(req.ctx.db, req.user, streamId);
    // Shared history: every topic; protected history: only topics of messages the user received.
    const shared = channel.history_public_to_subscribers === 1 && canSeeChannelHistory(req.user, channel, subscribed);
    rows = await channelTopicRows(req.ctx.db, req.realm.id, channel.id, shared ? undefined : req.user.id);
  }
  return { topics: topicHistory(rows, req.realm, allow_empty_topic_name) };
}

export const routes = [publicRoute("GET", "/users/me/{stream_id:int}/topics", getTopics, "optional")];
