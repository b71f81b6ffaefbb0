/**
 * A Parley node among several (REDIS_URL set): events travel between nodes on a Redis
 * stream (redis-bus.ts), event queues stay in the node that created them and GET /events
 * reaching another node is forwarded to it (forward.ts, nodes.ts), rate-limit counters and
 * login lock-outs live in Redis (redis-rate-limiter.ts). Everything else every node needs
 * is already in the shared PostgreSQL database (presence, scheduled deliveries, which are
 * claimed row by row).
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import type { Change } from "../caches/change.js";
import { serviceUnavailable } from "../errors.js";
import { badEventQueueId } from "../events/queues.js";
import { NodeRegistry } from "./nodes.js";
import { RedisEventBus } from "./redis-bus.js";
import { RedisRateLimiter } from "./redis-rate-limiter.js";

/** What a view needs to know of the cluster: where a queue lives. */
export interface ClusterNode {
  readonly nodeId: string;
  /**
   * null when the queue is this node's (or its id names no node); the URL of the live node
   * that holds it otherwise. A queue whose node is gone is reported as BAD_EVENT_QUEUE_ID.
   */
  queueNode(queueId: string): Promise<string | null>;
}

export interface ClusterHooks {
  onChange(change: Change): void;
  /** Events may have been missed: drop the queues (clients re-register) and flush caches. */
  onGap(): void;
  onError(message: string): void;
}

export class Cluster implements ClusterNode {
  readonly nodeId = randomBytes(6).toString("hex");
  readonly bus: RedisEventBus;
  readonly rateLimiter: RedisRateLimiter;
  private readonly registry: NodeRegistry;
  private readonly connections: Redis[];

  constructor(redisUrl: string, keyPrefix: string, hooks: ClusterHooks) {
    // Appends and reads wait through a reconnect; the limiter fails at once (a 503) instead.
    const writer = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const reader = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const quick = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    this.connections = [writer, reader, quick];
    let lastError = "";
    for (const c of this.connections) {
      c.on("error", (err: Error) => {
        // ioredis reports every failed reconnect: log each distinct message once.
        if (err.message !== lastError) hooks.onError(`Redis: ${err.message}`);
        lastError = err.message;
      });
      c.on("ready", () => (lastError = ""));
    }
    this.bus = new RedisEventBus(this.nodeId, keyPrefix, writer, reader, {
      onChange: hooks.onChange,
      onGap: hooks.onGap,
      onError: (err) => hooks.onError(`Redis event stream: ${err.message}`),
    });
    this.rateLimiter = new RedisRateLimiter(quick, keyPrefix, () => Date.now());
    this.registry = new NodeRegistry(quick, keyPrefix, this.nodeId);
  }

  /** Queue ids of this node start with its id, so any node can tell where a queue lives. */
  get queueIdPrefix(): string {
    return `${this.nodeId}:`;
  }

  async queueNode(queueId: string): Promise<string | null> {
    const colon = queueId.indexOf(":");
    if (colon <= 0) return null;
    const owner = queueId.slice(0, colon);
    if (owner === this.nodeId) return null;
    let url: string | undefined;
    try {
      url = await this.registry.urlOf(owner);
    } catch (err) {
      throw serviceUnavailable(err as Error);
    }
    if (url === undefined) throw badEventQueueId(queueId);
    return url;
  }

  /** Joins: reads other nodes' events from now on and announces this node at `nodeUrl`. */
  async start(nodeUrl: string): Promise<void> {
    await this.bus.start();
    await this.registry.start(nodeUrl);
  }

  async stop(): Promise<void> {
    await this.registry.stop();
    await this.bus.stop();
    // QUIT sends what the offline queue still holds, if Redis answers in time; a Redis that
    // is down would keep it waiting for ever.
    await Promise.all(this.connections.map((c) => quitWithin(c, QUIT_WAIT_MS)));
  }
}

const QUIT_WAIT_MS = 2_000;

async function quitWithin(connection: Redis, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([connection.quit().catch(() => undefined), timeout]);
  clearTimeout(timer);
  connection.disconnect();
}
