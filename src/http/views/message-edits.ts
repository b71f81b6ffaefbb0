/** Editing, deleting and the edit history of messages. */
import { ApiError } from "../../errors.js";
import { doDeleteMessage, doEditMessage, type PropagateMode } from "../../actions/message-edits.js";
import { messageHistory } from "../../lib/message-history.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** PATCH /api/v1/messages/{message_id} */
async function updateMessage(req: AuthedRequest): Promise<ViewResult> {
  const messageId = pathInt(req, "message_id");
  const params = parseParams(req, {
    stream_id: p.int({ min: 0 }).optional(),
    topic: p.str().alias("subject").optional(),
    propagate_mode: p.str({ oneOf: ["change_one", "change_later", "change_all"] }).default("change_one"),
    send_notification_to_old_thread: p.bool().default(false),
    send_notification_to_new_thread: p.bool().default(true),
    content: p.str().optional(),
  });
  await doEditMessage(req.ctx, req.realm, req.user, messageId, {
    channelId: params.stream_id,
    topic: params.topic,
    propagateMode: params.propagate_mode as PropagateMode,
    content: params.content,
    notifyOldThread: params.send_notification_to_old_thread,
    notifyNewThread: params.send_notification_to_new_thread,
  });
  return { detached_uploads: [] };
}

/** DELETE /api/v1/messages/{message_id} */
async function deleteMessage(req: AuthedRequest): Promise<ViewResult> {
  const messageId = pathInt(req, "message_id");
  parseParams(req, {});
  await doDeleteMessage(req.ctx, req.realm, req.user, messageId);
  return {};
}

/** GET /api/v1/messages/{message_id}/history */
async function getMessageHistory(req: AuthedRequest): Promise<ViewResult> {
  const messageId = pathInt(req, "message_id");
  const params = parseParams(req, { allow_empty_topic_name: p.bool().default(false) });
  if (!req.realm.allow_edit_history) throw new ApiError("Message edit history is disabled in this organization");
  return { message_history: await messageHistory(req.ctx.db, req.user, req.realm, messageId, params.allow_empty_topic_name) };
}

export const routes = [
  route("PATCH", "/messages/{message_id:int}", updateMessage),
  route("DELETE", "/messages/{message_id:int}", deleteMessage),
  route("GET", "/messages/{message_id:int}/history", getMessageHistory),
];
