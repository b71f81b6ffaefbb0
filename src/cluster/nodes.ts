/**
 * Which nodes are alive and where they listen. Each node keeps a key with its URL that
 * expires unless renewed, so a node that dies (SIGKILL) drops out within NODE_TTL_MS and
 * its queues are reported as gone (BAD_EVENT_QUEUE_ID) rather than waited for.
 */
import type { Redis } from "ioredis";

const NODE_TTL_MS = 10_000;
const RENEW_MS = 3_000;
/** A node's URL is looked up again after this long (a restarted node gets a new id anyway). */
const LOOKUP_CACHE_MS = 2_000;

export class NodeRegistry {
  private timer: NodeJS.Timeout | undefined;
  private readonly known = new Map<string, { url: string | undefined; at: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    readonly nodeId: string,
  ) {}

  private key(nodeId: string): string {
    return `${this.keyPrefix}node:${nodeId}`;
  }

  /** Announces this node at `url` and keeps the announcement alive. */
  async start(url: string): Promise<void> {
    await this.redis.set(this.key(this.nodeId), url, "PX", NODE_TTL_MS);
    this.timer = setInterval(() => {
      this.redis.set(this.key(this.nodeId), url, "PX", NODE_TTL_MS).catch(() => undefined);
    }, RENEW_MS);
    this.timer.unref();
  }

  /** Withdraws the announcement: this node's queues are gone for every other node at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.del(this.key(this.nodeId)).catch(() => undefined);
  }

  /** The URL of a live node, undefined when it is gone. */
  async urlOf(nodeId: string, now = Date.now()): Promise<string | undefined> {
    const hit = this.known.get(nodeId);
    if (hit && now - hit.at < LOOKUP_CACHE_MS) return hit.url;
    const url = (await this.redis.get(this.key(nodeId))) ?? undefined;
    this.known.set(nodeId, { url, at: now });
    return url;
  }
}
