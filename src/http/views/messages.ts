/** Sending and fetching messages. */
import { ApiError } from "../../errors.js";
import { doSendMessage, type SendTarget } from "../../actions/messages.js";
import { parseChannelIndicator, parseUserIndicators, resolveUsers } from "../../lib/addressee.js";
import { notLoggedIn, spectatorsAllowed } from "../../lib/message-access.js";
import { FLAG_BITS } from "../../lib/message-flags.js";
import { buildMessageRecords } from "../../lib/message-records.js";
import { messageReadFields } from "../../lib/message-read-fields.js";
import { narrowMessages } from "../../db/queries/message-narrow.js";
import { accessMessageForReading, accessWebPublicMessageForReading } from "../../lib/message-read.js";
import { isSpectatorCompatible, parseNarrow, resolveNarrow } from "../../lib/narrow.js";
import { fetchWindow, MAX_MESSAGES_PER_FETCH, parseAnchor } from "../../lib/message-window.js";
import { normalizeTopicInput } from "../../lib/topics.js";
import { realmHost } from "../../lib/realm-host.js";
import { p } from "../params/kinds.js";
import { paramMessages } from "../params/messages.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { ApiRequest, AuthedRequest, ViewResult } from "../request.js";
import { publicRoute, route } from "../route.js";
import { serializedFields } from "../response.js";

const hostOf = (req: ApiRequest) => realmHost(req.realm.string_id, req.ctx.config.externalHost);

/** POST /api/v1/messages */
async function sendMessage(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    type: p.str({ oneOf: ["direct", "private", "stream", "channel"] }),
    to: p.str().optional(),
    topic: p.str().alias("subject").optional(),
    content: p.str(),
    local_id: p.str().optional(),
    queue_id: p.str().optional(),
    read_by_sender: p.bool().optional(),
  });
  let target: SendTarget;
  if (params.type === "stream" || params.type === "channel") {
    if (params.to === undefined) throw new ApiError("Missing stream");
    const channel = parseChannelIndicator(params.to);
    if (params.topic === undefined) throw new ApiError("Missing topic");
    target = { kind: "channel", channel, topic: normalizeTopicInput(params.topic, req.realm) };
  } else {
    const indicators = params.to === undefined ? { ids: [] } : parseUserIndicators(params.to);
    target = { kind: "direct", recipients: await resolveUsers(req.ctx.db, req.realm, hostOf(req), indicators) };
  }
  const id = await doSendMessage(req.ctx, req.realm, req.user, {
    target,
    content: params.content,
    clientName: req.clientName,
    readBySender: params.read_by_sender,
    localId: params.local_id,
    queueId: params.queue_id,
  });
  return { id };
}

const GET_MESSAGE_PARAMS = {
  apply_markdown: p.bool().default(true),
  allow_empty_topic_name: p.bool().default(false),
};

/** GET /api/v1/messages/{message_id} (spectators: web-public channels only) */
async function getMessage(req: ApiRequest): Promise<ViewResult> {
  const messageId = pathInt(req, "message_id");
  const params = parseParams(req, GET_MESSAGE_PARAMS);
  // Access and the reader's flags from current rows on every request; the record from a cache.
  const access = req.user === null ? await accessWebPublicMessageForReading(req.ctx, req.realm, messageId) : await accessMessageForReading(req.ctx, req.user, messageId);
  // Spectators have no unread messages: their flags are just "read".
  const flags = req.user === null ? FLAG_BITS.read : access.flags;
  const fields = await messageReadFields(req.ctx, req.realm, hostOf(req), messageId, access, flags, {
    applyMarkdown: params.apply_markdown,
    // Upstream always answers this endpoint as for a client that computes hash-based avatars.
    clientHashavatar: true,
    allowEmptyTopicName: params.allow_empty_topic_name,
  });
  return serializedFields(fields);
}

/** GET /api/v1/messages (spectators: web-public channels only) */
async function getMessages(req: ApiRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    anchor: p.str().optional(),
    include_anchor: p.bool().default(true),
    num_before: p.int({ min: 0 }).default(0),
    num_after: p.int({ min: 0 }).default(0),
    narrow: p.str().optional(),
    use_first_unread_anchor: p.bool().default(false),
    client_hashavatar: p.bool().default(true),
    apply_markdown: p.bool().default(true),
    allow_empty_topic_name: p.bool().default(false),
  });
  const anchor = parseAnchor(params.anchor, params.use_first_unread_anchor);
  const terms = params.narrow === undefined ? [] : parseNarrow(params.narrow, () => new ApiError(paramMessages.badValue("narrow", params.narrow!)));
  if (params.num_before + params.num_after > MAX_MESSAGES_PER_FETCH) {
    throw new ApiError(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  }
  const { db } = req.ctx;
  if (req.user === null && (!spectatorsAllowed(req.realm) || !isSpectatorCompatible(terms))) throw notLoggedIn();
  const narrow = await resolveNarrow(db, req.user, req.realm, hostOf(req), terms);
  const window = await fetchWindow(
    db,
    { realmId: req.realm.id, userId: req.user?.id ?? -1, includeHistory: narrow.includeHistory, conditions: narrow.conditions },
    { anchor, numBefore: params.num_before, numAfter: params.num_after, includeAnchor: params.include_anchor },
    narrowMessages,
  );
  const messages = await buildMessageRecords(
    db,
    req.realm,
    hostOf(req),
    window.rows.map((r) => ({ message: r.message, flags: req.user === null ? FLAG_BITS.read : r.flags })),
    {
      applyMarkdown: params.apply_markdown,
      clientHashavatar: params.client_hashavatar,
      allowEmptyTopicName: params.allow_empty_topic_name,
      withFlags: true,
      channelNames: narrow.channelNames,
    },
  );
  return {
    messages,
    anchor: window.anchor,
    found_anchor: window.found_anchor,
    found_oldest: window.found_oldest,
    found_newest: window.found_newest,
    history_limited: false,
  };
}

export const routes = [
  route("POST", "/messages", sendMessage),
  publicRoute("GET", "/messages", getMessages, "optional"),
  publicRoute("GET", "/messages/{message_id:int}", getMessage, "optional"),
];
