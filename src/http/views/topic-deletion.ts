/** Topic deletion: POST /streams/{stream_id}/delete_topic (spec 4.8). */
import { doDeleteTopic } from "../../actions/topic-deletion.js";
import { mustBeAdmin } from "../../errors.js";
import { accessChannelById } from "../../lib/channels.js";
import { isAdmin } from "../../lib/roles.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** Upstream's fixed English name of the empty topic, read as "" besides the realm's display name. */
const GENERAL_CHAT = "general chat";

/** POST /api/v1/streams/{stream_id}/delete_topic */
async function deleteTopic(req: AuthedRequest): Promise<ViewResult> {
  if (!isAdmin(req.user)) throw mustBeAdmin();
  const channelId = pathInt(req, "stream_id");
  const params = parseParams(req, { topic_name: p.str() });
  const { channel } = await accessChannelById(req.ctx.db, req.user, channelId);
  const topic = params.topic_name === GENERAL_CHAT || params.topic_name === req.realm.empty_topic_display_name ? "" : params.topic_name;
  return doDeleteTopic(req.ctx, req.realm, req.user, channel, topic);
}

export const routes = [route("POST", "/streams/{stream_id:int}/delete_topic", deleteTopic)];
