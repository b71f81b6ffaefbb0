/** Starting and stopping a server: open the database, migrate, build the app, listen, start jobs. */
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import type { AppContext } from "./context.js";
import { dialectOf } from "./db/dialect.js";
import { migrateToLatest, openDb } from "./db/connect.js";
import type { Db } from "./db/tx.js";
import { InProcessEventBus } from "./events/publisher.js";
import { InMemoryRateLimiter } from "./http/rate-limit.js";
import { QueueManager } from "./events/queues.js";
import { systemClock } from "./jobs/clock.js";
import { DeliveryJob } from "./jobs/scheduled-delivery.js";

export async function createContext(config: Config): Promise<AppContext> {
  const db = openDb({ databaseUrl: config.databaseUrl, sqlitePath: path.join(config.dataDir, "parley.sqlite3") });
  await migrateToLatest(db);
  return contextFor(config, db);
}

/** The context of a server on an open, migrated database: in-process event bus, queues, limits. */
export function contextFor(config: Config, db: Db): AppContext {
  const events = new InProcessEventBus();
  const ctx: AppContext = {
    config,
    db,
    dialect: dialectOf(db),
    events,
    eventQueues: new QueueManager({ config, events, now: () => ctx.now() }),
    rateLimiter: new InMemoryRateLimiter(() => ctx.now()),
    now: () => Date.now(),
  };
  return ctx;
}

/** Pino settings: request logs show method and path only (no query string: it may hold credentials). */
export function loggerOptions(level: string) {
  return {
    level,
    // Plugins log their own copies of the headers too (the multipart parser logs its options,
    // headers included, at trace level): redact them wherever they sit one level down.
    redact: ["req.headers.authorization", "req.headers.cookie", "*.headers.authorization", "*.headers.cookie"],
    serializers: {
      req: (req: { method: string; url: string; hostname?: string }) => ({
        method: req.method,
        path: req.url.split("?")[0],
        host: req.hostname,
      }),
    },
  };
}

export async function startServer(config: Config): Promise<{ app: FastifyInstance; ctx: AppContext }> {
  const ctx = await createContext(config);
  const app = await buildApp(ctx, { logger: loggerOptions(config.logLevel) });
  const delivery = new DeliveryJob(ctx, systemClock);
  ctx.now = () => systemClock.now();
  app.addHook("onClose", async () => {
    await delivery.stop();
    await ctx.db.destroy();
  });
  await app.listen({ port: config.port, host: config.host });
  // Everything that came due while the server was down is delivered now, then on time.
  void delivery.start();
  return { app, ctx };
}
