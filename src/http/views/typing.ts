/** Typing notices: POST /typing (direct and channel) and 4.17 message-edit typing. */
import { doSendChannelTyping, doSendDirectTyping, doSendEditTyping } from "../../actions/typing.js";
import { nowSeconds } from "../../context.js";
import { listRealmUsers } from "../../db/queries/users.js";
import type { UserCard } from "../../db/schema.js";
import { ApiError } from "../../errors.js";
import { accessChannelById } from "../../lib/channels.js";
import { accessMessage } from "../../lib/message-access.js";
import { normalizeTopicInput } from "../../lib/topics.js";
import { p, v } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

const OPS = ["start", "stop"] as const;

/** POST /api/v1/typing */
async function setTypingStatus(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    type: p.str({ oneOf: ["direct", "stream", "channel"] }).default("direct"),
    op: p.str({ oneOf: OPS }),
    to: p.json(v.list(v.int())).optional(),
    stream_id: p.int().optional(),
    topic: p.str().optional(),
  });
  const op = params.op as (typeof OPS)[number];
  if (params.type === "stream" || params.type === "channel") {
    if (params.stream_id === undefined) throw new ApiError("Missing 'stream_id' argument");
    if (params.topic === undefined) throw new ApiError("Missing topic");
    const { channel } = await accessChannelById(req.ctx.db, req.user, params.stream_id);
    const topic = normalizeTopicInput(params.topic, req.realm);
    await doSendChannelTyping(req.ctx, req.realm, req.user, channel, topic, op);
    return {};
  }
  if (params.to === undefined) throw new ApiError("Missing 'to' argument");
  if (params.to.length === 0) throw new ApiError("Empty 'to' list");
  const ids = params.to.includes(req.user.id) ? [...params.to] : [...params.to, req.user.id];
  const users = new Map((await listRealmUsers(req.ctx.db, req.realm.id, [...new Set(ids)])).map((u) => [u.id, u]));
  // Any unknown id rejects the whole request (a partial list would name the wrong conversation).
  const participants: UserCard[] = [];
  for (const id of ids) {
    const user = users.get(id);
    if (!user) throw new ApiError(`Invalid user ID ${id}`);
    participants.push(user);
  }
  doSendDirectTyping(req.ctx, req.realm, req.user, participants, op);
  return {};
}

/** POST /api/v1/messages/{message_id}/typing */
async function setEditTypingStatus(req: AuthedRequest): Promise<ViewResult> {
  const messageId = pathInt(req, "message_id");
  const { op } = parseParams(req, { op: p.str({ oneOf: OPS }) });
  const { message } = await accessMessage(req.ctx.db, req.user, messageId, { modifying: true });
  // Same rules as editing the content, with no grace period.
  if (!req.realm.allow_message_editing) throw new ApiError("Your organization has turned off message editing");
  if (message.sender_id !== req.user.id) throw new ApiError("You don't have permission to edit this message");
  const limit = req.realm.message_content_edit_limit_seconds;
  if (limit !== null && nowSeconds(req.ctx) - message.date_sent > limit) {
    throw new ApiError("The time limit for editing this message has passed");
  }
  await doSendEditTyping(req.ctx, req.realm, req.user, message, op as (typeof OPS)[number]);
  return {};
}

export const routes = [route("POST", "/typing", setTypingStatus), route("POST", "/messages/{message_id:int}/typing", setEditTypingStatus)];
