/** Scheduled messages (spec 2.1, 4.1): GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{id}. */
import type { SendTarget } from "../../actions/messages.js";
import { checkMessage } from "../../actions/messages.js";
import {
  accessScheduledMessage,
  alreadySent,
  doDeleteScheduledMessage,
  doEditScheduledMessage,
  doScheduleMessage,
  type ScheduledEdit,
} from "../../actions/scheduled-messages.js";
import { toApiScheduledMessage } from "../../api-records/scheduled-message.js";
import { DELIVERY_SEND_LATER, listUndelivered } from "../../db/queries/scheduled-messages.js";
import type { ScheduledMessage } from "../../db/schema.js";
import { ApiError } from "../../errors.js";
import { resolveUsers } from "../../lib/addressee.js";
import { realmHost } from "../../lib/realm-host.js";
import { checkInFuture, extractChannelId, extractRecipientIds, FUTURE_TIME_REQUIRED, storedType } from "../../lib/scheduled-messages.js";
import { normalizeTopicInput } from "../../lib/topics.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

const TYPES = ["direct", "channel", "stream", "private"] as const;

/** The addressee from a type ("stream"/"private"), a raw `to` (or the ids already known) and a topic. */
async function buildTarget(req: AuthedRequest, type: "stream" | "private", to: string | number[], topic: string | undefined): Promise<SendTarget> {
  if (type === "stream") {
    const channelId = typeof to === "string" ? extractChannelId(to) : to[0]!;
    if (topic === undefined) throw new ApiError("Missing topic");
    return { kind: "channel", channel: { id: channelId }, topic: normalizeTopicInput(topic, req.realm) };
  }
  const ids = typeof to === "string" ? extractRecipientIds(to) : to;
  const host = realmHost(req.realm.string_id, req.ctx.config.externalHost);
  return { kind: "direct", recipients: await resolveUsers(req.ctx.db, req.realm, host, { ids }) };
}

/** GET /api/v1/scheduled_messages */
async function fetchScheduledMessages(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  const rows = await listUndelivered(req.ctx.db, req.realm.id, req.user.id, DELIVERY_SEND_LATER);
  return { scheduled_messages: rows.map(toApiScheduledMessage) };
}

/** POST /api/v1/scheduled_messages */
async function createScheduledMessage(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    type: p.str({ oneOf: TYPES }),
    to: p.str(),
    topic: p.str().alias("subject").optional(),
    content: p.str(),
    scheduled_delivery_timestamp: p.int(),
    read_by_sender: p.bool().optional(),
  });
  checkInFuture(params.scheduled_delivery_timestamp, req.ctx.now());
  const target = await buildTarget(req, storedType(params.type), params.to, params.topic);
  const id = await doScheduleMessage(req.ctx, req.realm, req.user, {
    target,
    content: params.content,
    deliverAt: params.scheduled_delivery_timestamp,
    readBySender: params.read_by_sender,
    clientName: req.clientName,
  });
  return { scheduled_message_id: id };
}

/** The existing addressee of a scheduled message, as `to` values. */
function existingTo(row: ScheduledMessage): number[] {
  return row.type === "stream" ? [row.channel_id!] : (JSON.parse(row.to_json) as number[]);
}

/** PATCH /api/v1/scheduled_messages/{scheduled_message_id} (spec 4.1) */
async function updateScheduledMessage(req: AuthedRequest): Promise<ViewResult> {
  const id = pathInt(req, "scheduled_message_id");
  const params = parseParams(req, {
    type: p.str({ oneOf: TYPES }).optional(),
    to: p.str().optional(),
    topic: p.str().alias("subject").optional(),
    content: p.str().optional(),
    scheduled_delivery_timestamp: p.int().optional(),
  });
  const { type, to, topic, content, scheduled_delivery_timestamp: deliverAt } = params;
  if (type === undefined && to === undefined && topic === undefined && content === undefined && deliverAt === undefined) {
    throw new ApiError("Nothing to change");
  }
  if (type !== undefined && to === undefined) throw new ApiError("Recipient required when updating type of scheduled message.");
  const newType = type === undefined ? undefined : storedType(type);
  if (newType === "stream" && topic === undefined) throw new ApiError("Topic required when updating scheduled message type to stream.");
  if (deliverAt !== undefined) checkInFuture(deliverAt, req.ctx.now());

  const row = await accessScheduledMessage(req.ctx, req.realm, req.user, id);
  if (row.delivered) throw alreadySent();
  // A message the server failed to send needs a new delivery time.
  if (row.failed && deliverAt === undefined) throw new ApiError(FUTURE_TIME_REQUIRED);

  const edit: ScheduledEdit = { deliverAt, clientName: req.clientName };
  if (type !== undefined || to !== undefined || content !== undefined) {
    const effectiveType = newType ?? (row.type as "stream" | "private");
    // A topic for a direct message is ignored; a channel message keeps its topic unless given.
    const effectiveTopic = topic ?? row.topic;
    const target = await buildTarget(req, effectiveType, to ?? existingTo(row), effectiveTopic);
    edit.recheck = { target, checked: await checkMessage(req.ctx, req.realm, req.user, target, content ?? row.content) };
  } else if (topic !== undefined && row.type === "stream") {
    edit.topic = normalizeTopicInput(topic, req.realm);
    if (req.realm.mandatory_topics && edit.topic === "") throw new ApiError("Topics are required in this organization");
  }
  await doEditScheduledMessage(req.ctx, req.realm, req.user, row, edit);
  return {};
}

/** DELETE /api/v1/scheduled_messages/{scheduled_message_id} */
async function deleteScheduledMessage(req: AuthedRequest): Promise<ViewResult> {
  const row = await accessScheduledMessage(req.ctx, req.realm, req.user, pathInt(req, "scheduled_message_id"));
  await doDeleteScheduledMessage(req.ctx, req.realm, req.user, row);
  return {};
}

export const routes = [
  route("GET", "/scheduled_messages", fetchScheduledMessages),
  route("POST", "/scheduled_messages", createScheduledMessage),
  route("PATCH", "/scheduled_messages/{scheduled_message_id:int}", updateScheduledMessage),
  route("DELETE", "/scheduled_messages/{scheduled_message_id:int}", deleteScheduledMessage),
];
