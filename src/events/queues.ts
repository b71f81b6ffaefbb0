/**
 * Event queues: one per registered client (POST /register), holding the events
 * published for its user until the client acknowledges them with last_event_id.
 *
 * The QueueManager subscribes to the event bus (ctx.events) and routes each published
 * event to the queues of its userIds in the same realm, plus, for `message` events in
 * public channels (audience.publicChannelId), the realm's all_public_streams queues.
 * Queues live in this process behind EventQueueStore, so a later multi-node setup can
 * keep them elsewhere.
 */
import { randomUUID } from "node:crypto";
import type { Config } from "../config.js";
import { ApiError, UnauthorizedError } from "../errors.js";
import type { EventPublisher, PublishedEvent } from "./publisher.js";
import { END_USER_QUEUES_EVENT, type ChatEvent, type EventInternalData } from "./types.js";
import { buildNarrowPredicate, type NarrowPredicate } from "./narrow.js";
import { shapeEventForQueue, shapeKeyOf } from "./shape.js";
import { eventsJson, SharedEvent, type QueuedEvent } from "./shared-event.js";

export type { QueuedEvent } from "./shared-event.js";

/** What a poll returns: consecutive queued events, from firstId on. */
export class PolledEvents {
  constructor(
    readonly firstId: number,
    private readonly shared: readonly SharedEvent[],
  ) {}

  get length(): number {
    return this.shared.length;
  }

  events(): QueuedEvent[] {
    return this.shared.map((e, i) => e.withId(this.firstId + i));
  }

  /**
   * `"events":[…]`, the same bytes as JSON.stringify of events(), without building them;
   * between `before` and `after` when given (a response body's envelope).
   */
  json(before?: Buffer, after?: Buffer): Buffer {
    return eventsJson(this.shared, this.firstId, before, after);
  }
}

/** Every heartbeat is the same event: serialized once for every queue. */
const HEARTBEAT = new SharedEvent({ type: "heartbeat" });

export interface QueueOptions {
  userId: number;
  realmId: number;
  /** null: every event type. */
  eventTypes: readonly string[] | null;
  narrow: ReadonlyArray<readonly [string, string]>;
  applyMarkdown: boolean;
  clientHashavatar: boolean;
  slimPresence: boolean;
  allPublicStreams: boolean;
  clientCapabilities: Readonly<Record<string, boolean>>;
  /** 0: the server default (config.eventQueueIdleSeconds); capped by config.eventQueueMaxLifespanSeconds. */
  lifespanSeconds: number;
  clientName: string;
  /** The realm's name for the empty topic, shown to clients without the empty_topic_name capability. */
  emptyTopicDisplayName: string;
}

/**
 * Who answers a waiting poll. Called synchronously, in the turn that wakes the poll (an
 * event queued, the heartbeat, shutdown), so a fan-out to many polls takes no promise
 * hop per poll; called at most once per poll.
 */
export interface PollWaiter {
  /** The queue's events (or a heartbeat, or none when the client went away). */
  answer(events: PolledEvents): void;
  /** The poll ends with this error (the user was deactivated meanwhile). */
  fail(error: Error): void;
}

/** A poll waiting on its queue. */
interface Waiter {
  waiter: PollWaiter;
  timer: NodeJS.Timeout;
  /** The client's connection and its close listener, while the poll waits. */
  connection: CloseNotifier | undefined;
  gone: (() => void) | undefined;
}

export class EventQueue {
  readonly id: string;
  readonly opts: QueueOptions;
  /** Queued events; their ids are consecutive, ending at nextEventId - 1. */
  private events: SharedEvent[] = [];
  private nextEventId = 0;
  /** Id of the newest event dropped by acknowledgement; -1 before any. */
  newestPrunedId = -1;
  /** Millisecond time of the last poll; idle expiry counts from here. */
  lastConnectionTime: number;
  waiter: Waiter | null = null;
  /**
   * Id of the newest message addressed to this queue's user; an all_public_streams copy
   * of the same message (published after the per-user events) is then not queued again.
   */
  lastAddressedMessageId = -1;
  /** Its waiting poll is in the manager's list of polls to answer (see QueueManager.answerSoon). */
  answerScheduled = false;
  private readonly narrowPredicate: NarrowPredicate;

  constructor(id: string, opts: QueueOptions, now: number) {
    this.id = id;
    this.opts = opts;
    this.lastConnectionTime = now;
    this.narrowPredicate = buildNarrowPredicate(opts.narrow);
  }

  get size(): number {
    return this.events.length;
  }

  /** Whether this client wants the event at all (event_types, narrow, capabilities). */
  accepts(event: ChatEvent): boolean {
    const types = this.opts.eventTypes;
    if (types !== null) {
      if (!types.includes(event.type)) return false;
      // Clients that understand user_topic do not need the legacy muted_topics copy.
      if (event.type === "muted_topics" && types.includes("user_topic")) return false;
    }
    if (event.type === "message") return this.narrowPredicate(event);
    // Channel typing notices only reach clients that declared they understand them.
    if (event.type === "typing" && "stream_id" in event) return this.opts.clientCapabilities.stream_typing_notifications === true;
    // Linkifiers use URL templates: only clients declaring linkifier_url_template get them
    // (their /register realm_linkifiers is empty otherwise).
    if (event.type === "realm_linkifiers") return this.opts.clientCapabilities.linkifier_url_template === true;
    // Deactivated groups: clients declaring include_deactivated_groups get updates, others removals.
    const onlyFor = (event.internal_data as EventInternalData | undefined)?.include_deactivated_groups;
    if (onlyFor !== undefined) return (this.opts.clientCapabilities.include_deactivated_groups === true) === onlyFor;
    return true;
  }

  /** Adds an event (already accepted and shaped for this client); returns its id. */
  push(event: ChatEvent | SharedEvent): number {
    this.events.push(event instanceof SharedEvent ? event : new SharedEvent(event));
    return this.nextEventId++;
  }

  /** Id of the oldest queued event (nextEventId when none is queued). */
  private get firstId(): number {
    return this.nextEventId - this.events.length;
  }

  /** Drops events with id <= throughId (acknowledged by the client). */
  prune(throughId: number): void {
    const n = Math.min(this.events.length, throughId - this.firstId + 1);
    if (n > 0) {
      this.newestPrunedId = this.firstId + n - 1;
      this.events.splice(0, n);
    }
  }

  contents(): QueuedEvent[] {
    return this.polled().events();
  }

  /** The queued events as a poll returns them. */
  polled(): PolledEvents {
    return new PolledEvents(this.firstId, this.events.slice());
  }

  /** Id of the newest event ever queued, -1 if none. */
  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  /** Idle queues (no poll waiting) expire lifespan seconds after their last poll. */
  expired(nowMs: number, defaultLifespanSeconds: number): boolean {
    const lifespan = this.opts.lifespanSeconds > 0 ? this.opts.lifespanSeconds : defaultLifespanSeconds;
    return this.waiter === null && nowMs - this.lastConnectionTime >= lifespan * 1000;
  }
}

/** Where queues are kept; a later issue backs this with Redis or PostgreSQL for several nodes. */
export interface EventQueueStore {
  add(queue: EventQueue): void;
  get(id: string): EventQueue | undefined;
  delete(id: string): void;
  forUser(userId: number): Iterable<EventQueue>;
  /** Queues registered with all_public_streams=true in the realm. */
  allPublicStreams(realmId: number): Iterable<EventQueue>;
  all(): Iterable<EventQueue>;
  count(): number;
}

export class InMemoryEventQueueStore implements EventQueueStore {
  private byId = new Map<string, EventQueue>();
  private byUser = new Map<number, Set<EventQueue>>();
  private publicByRealm = new Map<number, Set<EventQueue>>();

  add(queue: EventQueue): void {
    this.byId.set(queue.id, queue);
    let set = this.byUser.get(queue.opts.userId);
    if (!set) this.byUser.set(queue.opts.userId, (set = new Set()));
    set.add(queue);
    if (queue.opts.allPublicStreams) {
      let pub = this.publicByRealm.get(queue.opts.realmId);
      if (!pub) this.publicByRealm.set(queue.opts.realmId, (pub = new Set()));
      pub.add(queue);
    }
  }
  get(id: string): EventQueue | undefined {
    return this.byId.get(id);
  }
  delete(id: string): void {
    const q = this.byId.get(id);
    if (!q) return;
    this.byId.delete(id);
    const set = this.byUser.get(q.opts.userId);
    set?.delete(q);
    if (set && set.size === 0) this.byUser.delete(q.opts.userId);
    const pub = this.publicByRealm.get(q.opts.realmId);
    pub?.delete(q);
    if (pub && pub.size === 0) this.publicByRealm.delete(q.opts.realmId);
  }
  forUser(userId: number): Iterable<EventQueue> {
    return this.byUser.get(userId) ?? [];
  }
  allPublicStreams(realmId: number): Iterable<EventQueue> {
    return this.publicByRealm.get(realmId) ?? [];
  }
  all(): Iterable<EventQueue> {
    return this.byId.values();
  }
  count(): number {
    return this.byId.size;
  }
}

/** Per-client reshaping of an event (apply_markdown, slim presence…); null drops it. */
export type EventShaper = (queue: EventQueue, event: ChatEvent) => ChatEvent | null;

/** The shaped copies of one published event, by shape key (see shapeKeyOf). */
type ShapedCopies = Map<string, SharedEvent | null>;

export function badEventQueueId(queueId: string): ApiError {
  return new ApiError(`Bad event queue ID: ${queueId}`, { code: "BAD_EVENT_QUEUE_ID", data: { queue_id: queueId } });
}

type QueueLimitsConfig = Pick<
  Config,
  "longPollSeconds" | "eventQueueIdleSeconds" | "eventQueuesPerUser" | "eventQueueMaxLifespanSeconds" | "eventQueueMaxEvents"
>;

/**
 * What tells a waiting poll that its client went away: the HTTP socket, by its `close`
 * event. A listener is added only while the poll waits (no AbortController per poll).
 */
export interface CloseNotifier {
  readonly destroyed: boolean;
  once(event: "close", listener: () => void): unknown;
  off(event: "close", listener: () => void): unknown;
}

export interface FetchRequest {
  userId: number;
  queueId: string;
  lastEventId: number;
  dontBlock: boolean;
  /** Ends a waiting poll when the client goes away; the poll then resolves with no events. */
  connection?: CloseNotifier;
}

export class QueueManager {
  readonly store: EventQueueStore;
  private unsubscribe: (() => void) | null = null;
  private gcTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Queues whose waiting poll has new events to return, answered in slices (see answerSoon). */
  private toAnswer: EventQueue[] = [];
  private answering: NodeJS.Immediate | null = null;
  /** Shared shaping is only known to be right for the default shaper. */
  private readonly shapeKey: (queue: EventQueue, event: ChatEvent) => string | null;

  constructor(
    private readonly deps: {
      config: QueueLimitsConfig;
      events: EventPublisher;
      now: () => number;
      /** Starts every queue id (a cluster node's id: any node can tell where a queue lives). */
      queueIdPrefix?: string;
    },
    private readonly shape: EventShaper = shapeEventForQueue,
    store?: EventQueueStore,
  ) {
    this.store = store ?? new InMemoryEventQueueStore();
    this.shapeKey = shape === shapeEventForQueue ? shapeKeyOf : () => null;
  }

  /** Subscribes to the bus and starts the GC sweep (its timer never keeps the process alive). */
  start(): void {
    if (this.unsubscribe) return;
    this.stopped = false;
    this.unsubscribe = this.deps.events.subscribe((p) => this.route(p));
    const every = Math.max(1000, Math.min(60_000, (this.deps.config.eventQueueIdleSeconds * 1000) / 4));
    this.gcTimer = setInterval(() => this.gc(), every);
    this.gcTimer.unref();
  }

  /** Stops routing and timers and answers every waiting poll (server shutdown). */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.gcTimer) clearInterval(this.gcTimer);
    this.gcTimer = null;
    if (this.answering) clearImmediate(this.answering);
    this.answering = null;
    for (const q of this.toAnswer) q.answerScheduled = false;
    this.toAnswer = [];
    for (const q of this.store.all()) this.finish(q);
  }

  /**
   * Creates a queue. The requested lifespan is capped (as upstream); a user at the queue
   * limit loses the queue polled least recently, whose client then gets BAD_EVENT_QUEUE_ID
   * and re-registers: memory stays bounded and no client silently misses events.
   */
  allocate(opts: QueueOptions): EventQueue {
    const { eventQueuesPerUser, eventQueueMaxLifespanSeconds } = this.deps.config;
    const own = [...this.store.forUser(opts.userId)];
    own.sort((a, b) => a.lastConnectionTime - b.lastConnectionTime);
    for (const old of own.slice(0, Math.max(0, own.length - eventQueuesPerUser + 1))) this.drop(old);
    const lifespanSeconds = Math.min(opts.lifespanSeconds, eventQueueMaxLifespanSeconds);
    const queue = new EventQueue(`${this.deps.queueIdPrefix ?? ""}${randomUUID()}`, { ...opts, lifespanSeconds }, this.deps.now());
    this.store.add(queue);
    return queue;
  }

  /** The caller's queue; another user's queue is reported exactly like an unknown one. */
  access(userId: number, queueId: string): EventQueue {
    const q = this.store.get(queueId);
    if (!q || q.opts.userId !== userId) throw badEventQueueId(queueId);
    return q;
  }

  delete(userId: number, queueId: string): void {
    this.drop(this.access(userId, queueId));
  }

  /**
   * GET /events: acknowledge through lastEventId, then return queued events at once,
   * or wait for the next one (or a heartbeat after longPollSeconds). The events come as
   * PolledEvents: their JSON is built from shared bytes.
   */
  poll(req: FetchRequest): Promise<PolledEvents> {
    return new Promise((resolve, reject) => {
      const now = this.pollOrWait(req, { answer: resolve, fail: reject });
      if (now !== null) resolve(now);
    });
  }

  /**
   * poll() without a promise: the events to answer at once, or null when the poll waits;
   * `waiter` is then answered later (see PollWaiter). A client going away (its
   * connection's close) ends the wait with no events.
   */
  pollOrWait(req: FetchRequest, waiter: PollWaiter): PolledEvents | null {
    const q = this.access(req.userId, req.queueId);
    if (req.lastEventId < q.newestPrunedId) throw new ApiError(`An event newer than ${req.lastEventId} has already been pruned!`);
    q.prune(req.lastEventId);
    if (req.lastEventId !== q.newestPrunedId) {
      throw new ApiError(`Event ${req.lastEventId} was not in this queue`);
    }
    // A new poll replaces a waiting one on the same queue (which answers with what it has).
    this.finish(q);
    q.lastConnectionTime = this.deps.now();
    const connection = req.connection;
    // After stop() no poll waits: the server is closing and would wait for it.
    if (q.size > 0 || req.dontBlock || this.stopped || connection?.destroyed) return q.polled();
    const w: Waiter = { waiter, timer: setTimeout(this.heartbeat, this.deps.config.longPollSeconds * 1000, q), connection, gone: undefined };
    if (connection !== undefined) {
      w.gone = () => {
        if (q.waiter !== w) return;
        this.release(q, w);
        w.waiter.answer(NO_EVENTS);
      };
      connection.once("close", w.gone);
    }
    q.waiter = w;
    return null;
  }

  /** A poll that waited longPollSeconds gets a heartbeat. */
  private readonly heartbeat = (q: EventQueue): void => {
    const w = q.waiter;
    if (w === null) return;
    q.push(HEARTBEAT);
    this.release(q, w);
    w.waiter.answer(q.polled());
  };

  /** The queue's poll stops waiting (its timer and close listener go): it is about to be answered. */
  private release(q: EventQueue, w: Waiter): void {
    q.waiter = null;
    clearTimeout(w.timer);
    if (w.gone !== undefined) w.connection!.off("close", w.gone);
    q.lastConnectionTime = this.deps.now();
  }

  /** Adds an event to a queue (also used by /register for events queued during the state fetch). */
  deliver(q: EventQueue, event: ChatEvent, copies?: ShapedCopies): void {
    if (!this.offer(q, event, copies)) this.drop(q);
  }

  /**
   * Queues the event if the client wants it, answering a waiting poll; false when the queue
   * is full: the client stopped acknowledging, so the caller drops the queue and the client
   * re-registers (BAD_EVENT_QUEUE_ID) rather than silently losing events.
   */
  private offer(q: EventQueue, event: ChatEvent, copies: ShapedCopies | undefined): boolean {
    if (!q.accepts(event)) return true;
    const shaped = this.shaped(q, event, copies);
    if (shaped === null) return true;
    if (q.size >= this.deps.config.eventQueueMaxEvents) return false;
    q.push(shaped);
    if (q.waiter) this.answerSoon(q);
    return true;
  }

  /**
   * A waiting poll has events to return: it is answered after the current turn, with the
   * other polls woken meanwhile, ANSWER_SLICE per event-loop turn. Publishing an event then
   * only queues it: the sender gets its response once every queue holds the message, not
   * after 10,000 socket writes, and requests arriving during a big fan-out are served
   * between its slices instead of waiting for all of it.
   */
  private answerSoon(q: EventQueue): void {
    if (q.answerScheduled) return;
    q.answerScheduled = true;
    this.toAnswer.push(q);
    this.answering ??= setImmediate(this.answerSlice);
  }

  private readonly answerSlice = (): void => {
    const slice = this.toAnswer.splice(0, ANSWER_SLICE);
    this.answering = this.toAnswer.length > 0 ? setImmediate(this.answerSlice) : null;
    for (const q of slice) {
      q.answerScheduled = false;
      // Answered meanwhile (a new poll, a drop) or emptied: nothing to do.
      if (q.size > 0) this.finish(q);
    }
  };

  /** The event shaped for the queue, shared with earlier queues of the same shape key. */
  private shaped(q: EventQueue, event: ChatEvent, copies: ShapedCopies | undefined): SharedEvent | null {
    const key = copies ? this.shapeKey(q, event) : null;
    if (key === null) return sharedOrNull(this.shape(q, event));
    let shaped = copies!.get(key);
    if (shaped === undefined) copies!.set(key, (shaped = sharedOrNull(this.shape(q, event))));
    return shaped;
  }

  /** Drops every queue (events may have been missed): each client re-registers. */
  dropAll(): void {
    for (const q of [...this.store.all()]) this.drop(q);
  }

  /** Removes idle queues past their lifespan. */
  gc(): number {
    const now = this.deps.now();
    const expired = [...this.store.all()].filter((q) => q.expired(now, this.deps.config.eventQueueIdleSeconds));
    for (const q of expired) this.store.delete(q.id);
    return expired.length;
  }

  private route(p: PublishedEvent): void {
    if (p.event.type === END_USER_QUEUES_EVENT) {
      for (const userId of new Set(p.userIds)) this.endUserQueues(p.realmId, userId);
      return;
    }
    const messageId = messageIdOf(p.event);
    const copies: ShapedCopies = new Map();
    // Full queues are dropped after the loops: the store's sets are not changed while iterated.
    const full: EventQueue[] = [];
    for (const userId of new Set(p.userIds)) {
      for (const q of this.store.forUser(userId)) {
        if (q.opts.realmId !== p.realmId) continue;
        if (messageId !== null) q.lastAddressedMessageId = messageId;
        if (!this.offer(q, p.event, copies)) full.push(q);
      }
    }
    if (p.audience?.publicChannelId !== undefined && messageId !== null) {
      // Upstream's all_public_streams clients see every public-channel message; a client
      // whose user is a recipient already got the message with the user's own flags.
      const copy = { ...p.event, flags: [] };
      const publicCopies: ShapedCopies = new Map();
      for (const q of this.store.allPublicStreams(p.realmId)) {
        if (q.lastAddressedMessageId === messageId) continue;
        q.lastAddressedMessageId = messageId;
        if (!this.offer(q, copy, publicCopies)) full.push(q);
      }
    }
    for (const q of full) this.drop(q);
  }

  /**
   * A deactivated user's queues end at once (upstream's API refuses the user's next
   * request); a waiting poll is answered with the error the user's next request gets.
   */
  private endUserQueues(realmId: number, userId: number): void {
    for (const q of [...this.store.forUser(userId)]) {
      if (q.opts.realmId !== realmId) continue;
      const w = q.waiter;
      if (w) {
        this.release(q, w);
        w.waiter.fail(new UnauthorizedError("Account is deactivated"));
      }
      this.store.delete(q.id);
    }
  }

  /** Removes a queue; its waiting poll, if any, first gets what the queue holds. */
  private drop(q: EventQueue): void {
    this.finish(q);
    this.store.delete(q.id);
  }

  /** Answers the waiting poll of a queue, if any, with the queue's contents. */
  private finish(q: EventQueue): void {
    const w = q.waiter;
    if (!w) return;
    this.release(q, w);
    w.waiter.answer(q.polled());
  }
}

const NO_EVENTS = new PolledEvents(0, []);

/**
 * Waiting polls answered per event-loop turn in a fan-out: each answer is one socket write
 * (~20-30 µs here, mostly the kernel's), so a slice is a few milliseconds of the loop.
 */
const ANSWER_SLICE = 200;

function sharedOrNull(event: ChatEvent | null): SharedEvent | null {
  return event === null ? null : new SharedEvent(event);
}

function messageIdOf(event: ChatEvent): number | null {
  if (event.type !== "message") return null;
  const id = (event.message as { id?: unknown } | undefined)?.id;
  return typeof id === "number" ? id : null;
}
