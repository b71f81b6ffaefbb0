/**
 * Which nodes are alive and where they listen. Each node keeps a key with its URL that
 * expires unless renewed, so a node that dies (SIGKILL) drops out within NODE_TTL_MS and
 * its queues are reported as gone (BAD_EVENT_QUEUE_ID) rather than waited for.
 * A Redis that restarts comes back without the keys: every node announces itself again as
 * soon as it reconnects, and meanwhile a missing key is not taken for a dead node.
 */
import type { Redis } from "ioredis";

const NODE_TTL_MS = 10_000;
const RENEW_MS = 3_000;
/** A node's URL is looked up again after this long (a restarted node gets a new id anyway). */
const LOOKUP_CACHE_MS = 2_000;
/** After a reconnect, how long a lookup waits for a missing node to announce itself again. */
const REANNOUNCE_WAIT_MS = 4_000;

export class NodeRegistry {
  private timer: NodeJS.Timeout | undefined;
  private readonly known = new Map<string, { url: string | undefined; at: number }>();
  private url: string | undefined;
  private connectedBefore = false;
  /** When the connection to Redis was last re-established (0: never lost). */
  private reconnectedAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    readonly nodeId: string,
  ) {
    redis.on("ready", () => {
      if (this.connectedBefore) {
        this.reconnectedAt = Date.now();
        // Redis may have restarted empty: announce this node again now, not at the next renewal.
        if (this.url !== undefined) this.announce().catch(() => undefined);
      }
      this.connectedBefore = true;
    });
  }

  private announce(): Promise<unknown> {
    return this.redis.set(this.key(this.nodeId), this.url!, "PX", NODE_TTL_MS);
  }

  private key(nodeId: string): string {
    return `${this.keyPrefix}node:${nodeId}`;
  }

  /** Announces this node at `url` and keeps the announcement alive. */
  async start(url: string): Promise<void> {
    this.url = url;
    await this.announce();
    this.timer = setInterval(() => {
      this.announce().catch(() => undefined);
    }, RENEW_MS);
    this.timer.unref();
  }

  /** Withdraws the announcement: this node's queues are gone for every other node at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.url = undefined;
    await this.redis.del(this.key(this.nodeId)).catch(() => undefined);
  }

  /** The URL of a live node, undefined when it is gone. */
  async urlOf(nodeId: string, now = Date.now()): Promise<string | undefined> {
    const hit = this.known.get(nodeId);
    if (hit && now - hit.at < LOOKUP_CACHE_MS) return hit.url;
    let url = (await this.redis.get(this.key(nodeId))) ?? undefined;
    // Just after a reconnect a live node may not have announced itself again yet.
    while (url === undefined && Date.now() - this.reconnectedAt < REANNOUNCE_WAIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      url = (await this.redis.get(this.key(nodeId))) ?? undefined;
    }
    this.known.set(nodeId, { url, at: Date.now() });
    return url;
  }
}
