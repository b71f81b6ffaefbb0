/** Topic visibility policies: POST /user_topics (spec 4.2). */
import { doSetUserTopicPolicy, VISIBILITY_POLICIES } from "../../actions/user-topics.js";
import { findChannelById } from "../../db/queries/channels.js";
import { ApiError } from "../../errors.js";
import { accessChannelById, INVALID_CHANNEL_ID } from "../../lib/channels.js";
import { paramMessages } from "../params/messages.js";
import { p } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** POST /api/v1/user_topics */
async function updateUserTopic(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    stream_id: p.int(),
    topic: p.str(),
    visibility_policy: p.int(),
  });
  if (!(VISIBILITY_POLICIES as readonly number[]).includes(params.visibility_policy)) throw new ApiError(paramMessages.invalidChoice("visibility_policy"));
  let topic = params.topic;
  if ([...topic].length > req.realm.max_topic_length) throw new ApiError(paramMessages.tooLong("topic", req.realm.max_topic_length));
  if (topic === req.realm.empty_topic_display_name) topic = "";
  // Removing a policy needs only the channel to exist (the user may have lost access
  // since); setting one needs access to it.
  let channel;
  if (params.visibility_policy === 0) {
    channel = await findChannelById(req.ctx.db, req.realm.id, params.stream_id);
    if (!channel) throw new ApiError(INVALID_CHANNEL_ID);
  } else {
    channel = (await accessChannelById(req.ctx.db, req.user, params.stream_id)).channel;
  }
  await doSetUserTopicPolicy(req.ctx, req.realm, req.user, channel, topic, params.visibility_policy);
  return {};
}

export const routes = [route("POST", "/user_topics", updateUserTopic)];
