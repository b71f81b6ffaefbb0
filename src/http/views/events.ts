/** Event queues: POST /register, GET /events (long-poll), DELETE /events (spec 6). */
import { nowSeconds } from "../../context.js";
import { applyEvents } from "../../events/apply.js";
import { fetchInitialState } from "../../events/initial-state/index.js";
import { serializeState } from "../../events/initial-state/raw-json.js";
import type { CloseNotifier, EventQueue, QueueOptions } from "../../events/queues.js";
import { ApiError } from "../../errors.js";
import { isGuest } from "../../lib/roles.js";
import { p, v, type Validator } from "../params/kinds.js";
import { paramMessages as m } from "../params/messages.js";
import { parseParams } from "../params/parse.js";
import { realmHost } from "../../lib/realm-host.js";
import { ANSWERED_LATER, type AuthedRequest, type ViewResult } from "../request.js";
import { serializedFields, successTail } from "../response.js";
import { LongPollReply } from "../long-poll-reply.js";
import { enforceRateLimit } from "../rate-limit.js";
import { route } from "../route.js";
import { answerFromQueueNode } from "./events-forward.js";
import { fairTurn } from "../fair-turns.js";

/** client_capabilities: an object of booleans that must name notification_settings_null. */
const capabilities: Validator<Record<string, boolean>> = (value, name) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ApiError(m.notDict(name));
  const obj = value as Record<string, unknown>;
  if (!("notification_settings_null" in obj)) throw new ApiError(m.keyMissing("notification_settings_null", name));
  for (const [k, val] of Object.entries(obj)) if (typeof val !== "boolean") throw new ApiError(m.notBoolean(`${name}["${k}"]`));
  return obj as Record<string, boolean>;
};

/** narrow: a list of [operator, operand] string pairs. */
const narrowPairs: Validator<Array<[string, string]>> = (value, name) =>
  v.list((item, itemName) => {
    const pair = v.list(v.str())(item, itemName);
    if (pair.length !== 2) throw new ApiError(`${itemName} should have exactly 2 items`);
    return [pair[0], pair[1]] as [string, string];
  })(value, name);

function checkAllPublicStreams(req: AuthedRequest, allPublicStreams: boolean): void {
  // Guests cannot see public channels they are not subscribed to.
  if (allPublicStreams && isGuest(req.user)) throw new ApiError("User not authorized for this query");
}

/** POST /api/v1/register */
async function register(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    apply_markdown: p.bool().default(false),
    client_hashavatar: p.bool().default(true),
    slim_presence: p.bool().default(false),
    presence_history_limit_days: p.int().optional(),
    all_public_streams: p.bool().optional(),
    include_subscribers: p.bool().default(false),
    client_capabilities: p.json(capabilities).optional(),
    event_types: p.json(v.list(v.str())).optional(),
    fetch_event_types: p.json(v.list(v.str())).optional(),
    narrow: p.json(narrowPairs).default([]),
    queue_lifespan_secs: p.nonNegativeInt().default(0),
  });
  checkAllPublicStreams(req, params.all_public_streams === true);
  await fairTurn();
  const caps = params.client_capabilities ?? {};
  // The queue exists before the state is read, so nothing published meanwhile is lost:
  // events that arrive during the fetch are applied to the state below.
  const queue = await allocateQueue(req, {
    eventTypes: params.event_types ?? null,
    narrow: params.narrow,
    applyMarkdown: params.apply_markdown,
    clientHashavatar: params.client_hashavatar,
    slimPresence: params.slim_presence,
    allPublicStreams: params.all_public_streams ?? false,
    clientCapabilities: caps,
    lifespanSeconds: params.queue_lifespan_secs,
  });
  const state = await fetchInitialState({
    ctx: req.ctx,
    realm: req.realm,
    user: req.user,
    host: realmHost(req.realm.string_id, req.ctx.config.externalHost),
    now: nowSeconds(req.ctx),
    opts: {
      fetchEventTypes: params.fetch_event_types ?? params.event_types ?? null,
      applyMarkdown: params.apply_markdown,
      clientHashavatar: params.client_hashavatar,
      slimPresence: params.slim_presence,
      includeSubscribers: params.include_subscribers,
      clientCapabilities: caps,
      presenceHistoryLimitDays: params.presence_history_limit_days,
    },
  });
  const pending = queue.contents();
  // Cached parts of the state come serialized (raw-json.ts): an applier that reads one gets it parsed.
  applyEvents(state, pending, { includeSubscribers: params.include_subscribers, userId: req.user.id });
  const head = { queue_id: queue.id, last_event_id: pending.length > 0 ? pending[pending.length - 1].id : -1 };
  return serializedFields(serializeState(head, state));
}

/** A new queue for the caller; queue creations per user are rate-limited (429 RATE_LIMIT_HIT). */
async function allocateQueue(req: AuthedRequest, o: Omit<QueueOptions, "userId" | "realmId" | "clientName" | "emptyTopicDisplayName">): Promise<EventQueue> {
  const rule = { seconds: 60, max: req.ctx.config.eventQueueCreationsPerMinute };
  await enforceRateLimit(req.ctx.rateLimiter, `queues:${req.user.id}`, rule);
  return req.ctx.eventQueues.allocate({
    ...o,
    userId: req.user.id,
    realmId: req.realm.id,
    clientName: req.clientName,
    emptyTopicDisplayName: req.realm.empty_topic_display_name,
  });
}

/** GET /api/v1/events */
async function getEvents(req: AuthedRequest): Promise<ViewResult> {
  const elsewhere = await answerFromQueueNode(req);
  if (elsewhere) return elsewhere;
  const params = parseParams(req, {
    last_event_id: p.int().optional(),
    queue_id: p.str().optional(),
    apply_markdown: p.bool().default(false),
    client_hashavatar: p.bool().default(false),
    slim_presence: p.bool().default(false),
    all_public_streams: p.bool().default(false),
    event_types: p.json(v.list(v.str())).optional(),
    dont_block: p.bool().default(false),
    narrow: p.json(narrowPairs).default([]),
    lifespan_secs: p.nonNegativeInt().default(0),
  });
  checkAllPublicStreams(req, params.all_public_streams);
  const queues = req.ctx.eventQueues;
  if (params.queue_id === undefined) {
    // Without a queue, only a non-blocking call may create one (upstream's behaviour).
    if (!params.dont_block) throw new ApiError("Missing 'queue_id' argument");
    const queue = await allocateQueue(req, {
      eventTypes: params.event_types ?? null,
      narrow: params.narrow,
      applyMarkdown: params.apply_markdown,
      clientHashavatar: params.client_hashavatar,
      slimPresence: params.slim_presence,
      allPublicStreams: params.all_public_streams,
      clientCapabilities: {},
      lifespanSeconds: params.lifespan_secs,
    });
    return { events: queue.contents(), queue_id: queue.id };
  }
  if (params.last_event_id === undefined) throw new ApiError("Missing 'last_event_id' argument");
  const waiter = new LongPollReply();
  const polled = queues.pollOrWait(
    {
      userId: req.user.id,
      queueId: params.queue_id,
      lastEventId: params.last_event_id,
      dontBlock: params.dont_block,
      connection: closeNotifierOf(req.raw.raw.socket),
    },
    waiter,
  );
  if (polled === null) {
    // The poll waits: the waiter answers it on Node's response when the queue wakes it.
    waiter.start(req.reply, successTail(req));
    return ANSWERED_LATER;
  }
  // Already serialized: each shared event's JSON is built once for every queue that gets it.
  return serializedFields([polled.json()]);
}

/** The request's socket, when it can tell that the client went away (injected test requests have none). */
function closeNotifierOf(socket: unknown): CloseNotifier | undefined {
  const s = socket as Partial<CloseNotifier> | null | undefined;
  return typeof s?.once === "function" && typeof s.off === "function" && typeof s.destroyed === "boolean" ? (s as CloseNotifier) : undefined;
}

/** DELETE /api/v1/events */
async function deleteQueue(req: AuthedRequest): Promise<ViewResult> {
  const elsewhere = await answerFromQueueNode(req);
  if (elsewhere) return elsewhere;
  const { queue_id } = parseParams(req, { queue_id: p.str() });
  req.ctx.eventQueues.delete(req.user.id, queue_id);
  return {};
}

export const routes = [route("POST", "/register", register), route("GET", "/events", getEvents, { exemptFromRateLimit: true }), route("DELETE", "/events", deleteQueue)];
