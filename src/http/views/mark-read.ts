/** The mark-as-read family: everything, a channel, a topic (upstream views/message_flags.py). */
import { doMarkAllAsRead, doMarkChannelAsRead } from "../../actions/mark-read.js";
import { userHasMessageInTopic } from "../../db/queries/mark-read.js";
import { ApiError } from "../../errors.js";
import { accessChannelById } from "../../lib/channels.js";
import { LEGACY_NO_TOPIC } from "../../lib/topics.js";
import { p } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** POST /api/v1/mark_all_as_read */
async function markAllAsRead(req: AuthedRequest): Promise<ViewResult> {
  return { complete: await doMarkAllAsRead(req.ctx, req.realm, req.user) };
}

/** POST /api/v1/mark_stream_as_read */
async function markStreamAsRead(req: AuthedRequest): Promise<ViewResult> {
  const { stream_id } = parseParams(req, { stream_id: p.int() });
  await accessChannelById(req.ctx.db, req.user, stream_id);
  await doMarkChannelAsRead(req.ctx, req.realm, req.user, stream_id);
  return {};
}

/** POST /api/v1/mark_topic_as_read */
async function markTopicAsRead(req: AuthedRequest): Promise<ViewResult> {
  const { stream_id, topic_name } = parseParams(req, { stream_id: p.int(), topic_name: p.str() });
  await accessChannelById(req.ctx.db, req.user, stream_id);
  // The empty topic may be named by its display name (upstream's "general chat" rename).
  const topic = topic_name === req.realm.empty_topic_display_name || topic_name === LEGACY_NO_TOPIC ? "" : topic_name;
  if (!(await userHasMessageInTopic(req.ctx.db, req.realm.id, req.user.id, stream_id, topic))) {
    throw new ApiError(`No such topic '${topic}'`);
  }
  await doMarkChannelAsRead(req.ctx, req.realm, req.user, stream_id, topic);
  return {};
}

export const routes = [
  route("POST", "/mark_all_as_read", markAllAsRead),
  route("POST", "/mark_stream_as_read", markStreamAsRead),
  route("POST", "/mark_topic_as_read", markTopicAsRead),
];
