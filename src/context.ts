/** AppContext: everything a view, action or job needs, passed explicitly (no globals). */
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "./config.js";
import type { Db } from "./db/tx.js";
import type { EventPublisher } from "./events/publisher.js";
import type { QueueManager } from "./events/queues.js";
import type { DialectName } from "./db/dialect.js";
import type { RateLimiter } from "./http/rate-limit.js";
import type { Caches } from "./caches/index.js";
import type { ClusterNode } from "./cluster/index.js";

export interface AppContext {
  config: Config;
  db: Db;
  dialect: DialectName;
  events: EventPublisher;
  /** Event queues of registered clients (POST /register, GET /events), fed by `events`. */
  eventQueues: QueueManager;
  /** Request and login-attempt counters. */
  rateLimiter: RateLimiter;
  /** Realms, users by API key, serialized responses: see src/caches/index.ts for invalidation. */
  caches: Caches;
  /** Current time in milliseconds; tests may replace it. */
  now: () => number;
  log?: FastifyBaseLogger;
  /** Set when this process is one node of several (REDIS_URL): where each event queue lives. */
  cluster?: ClusterNode;
  /** Aborted when the HTTP server starts shutting down (http/closing.ts): waits end then. */
  closing?: AbortSignal;
  /** The scheduled-delivery job, when running: told of each new delivery time (src/jobs). */
  deliveryJob?: { wakeAt(timestampSeconds: number): void };
}

/** Current UNIX time in whole seconds. */
export function nowSeconds(ctx: Pick<AppContext, "now">): number {
  return Math.floor(ctx.now() / 1000);
}
