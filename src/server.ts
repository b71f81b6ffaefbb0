/** Starting and stopping a server: open the database, migrate, build the app, listen, start jobs. */
import type { FastifyInstance } from "fastify";
// Fastify's own logger; imported for its asynchronous destination only.
import pino from "pino";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import type { AppContext } from "./context.js";
import { dialectOf } from "./db/dialect.js";
import { directReaderOf } from "./db/direct-reads.js";
import { migrateToLatest, openDb, turnSnapshotOf, walCommitsOf } from "./db/connect.js";
import { Caches } from "./caches/index.js";
import { PostgresFlushListener } from "./caches/postgres-notify.js";
import { describeDatabase, sqlitePathFor } from "./db/location.js";
import { listRealms } from "./db/queries/realms.js";
import { observeTransactions, type Db } from "./db/tx.js";
import { InProcessEventBus } from "./events/publisher.js";
import { InMemoryRateLimiter } from "./http/rate-limit.js";
import { QueueManager } from "./events/queues.js";
import { systemClock } from "./jobs/clock.js";
import { DeliveryJob } from "./jobs/scheduled-delivery.js";
import { SessionSweepJob } from "./jobs/session-sweep.js";
import { realmUrl } from "./lib/realm-host.js";
import { acquireServerLock, type ServerLock } from "./server-lock.js";
import { Cluster } from "./cluster/index.js";

export async function createContext(config: Config): Promise<AppContext> {
  return (await openContext(config)).ctx;
}

/** The context on an open, migrated database, and the migrations that opening applied. */
export async function openContext(config: Config, opts: ContextOptions = {}): Promise<{ ctx: AppContext; applied: string[] }> {
  const db = openDb({ databaseUrl: config.databaseUrl, sqlitePath: sqlitePathFor(config.dataDir) });
  try {
    const applied = await migrateToLatest(db);
    return { ctx: contextFor(config, db, opts), applied };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}

export interface ContextOptions {
  /** A node of a cluster: events, rate limits and cache changes go through Redis. */
  cluster?: Cluster;
}

/** The context of a server on an open, migrated database: event bus, queues, limits. */
export function contextFor(config: Config, openedDb: Db, opts: ContextOptions = {}): AppContext {
  const { cluster } = opts;
  const events = cluster?.bus ?? new InProcessEventBus();
  const caches = new Caches();
  if (cluster) caches.committedWrite = (change) => cluster.bus.publishChange(change);
  caches.watch(events);
  const walCommits = walCommitsOf(openedDb);
  // Another process's commit, once noticed, also ends the read connection's snapshot: the caches refill from it.
  if (walCommits) caches.watchSqlite(walCommits, () => turnSnapshotOf(openedDb)?.end());
  // Unread floors are learned from reads at a known commit count of the one writer.
  const reader = directReaderOf(openedDb);
  if (reader && !cluster) caches.unreadFloors.enable(reader);
  // Every write of this process to a cached table flushes (writes without an event too).
  const db = openedDb.withPlugin(caches.writeWatcher);
  observeTransactions(db, caches.writeWatcher);
  const ctx: AppContext = {
    config,
    db,
    dialect: dialectOf(db),
    events,
    caches,
    eventQueues: new QueueManager({ config, events, now: () => ctx.now(), queueIdPrefix: cluster?.queueIdPrefix }),
    rateLimiter: cluster?.rateLimiter ?? new InMemoryRateLimiter(() => ctx.now()),
    now: () => Date.now(),
    cluster,
  };
  return ctx;
}

/** Pino settings: request logs show method and path only (no query string: it may hold credentials). */
export function loggerOptions(level: string) {
  return {
    level,
    // Plugins log their own copies of the headers too (the multipart parser logs its options,
    // headers included, at trace level): redact them wherever they sit one level down.
    // The session cookie and the CSRF token too.
    redact: ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-csrftoken"]', "*.headers.authorization", "*.headers.cookie", '*.headers["x-csrftoken"]'],
    serializers: {
      req: (req: { method: string; url: string; hostname?: string }) => ({
        method: req.method,
        path: req.url.split("?")[0],
        host: req.hostname,
      }),
    },
  };
}

/**
 * Standard output written asynchronously and in blocks: lines collect in a buffer written
 * once it holds 4 KiB, or every 200 ms, and synchronously at exit (pino's exit handler).
 * A request never waits for its log line, and a busy server makes one write per block.
 */
function asyncStdout() {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      /* not ready yet, or already closed: the next tick or the exit handler writes it */
    }
  }, 200).unref();
  return destination;
}

/** A reason the server cannot start, meant to be printed as one line (no stack). */
export class StartupError extends Error {}

export interface RunningServer {
  app: FastifyInstance;
  ctx: AppContext;
  /** Closes queues, connections and the database, logging each, and releases the lock. */
  shutdown(reason: string): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  // SQLite: one server per data folder, or two processes would split the event queues.
  const lock: ServerLock | undefined = config.databaseUrl === undefined ? acquireServerLock(config.dataDir) : undefined;
  let app: FastifyInstance | undefined;
  let cluster: Cluster | undefined;
  try {
    const joined = joinCluster(config, (message) => app?.log.warn(message));
    cluster = joined?.cluster;
    const { ctx, applied } = await openContext(config, { cluster });
    joined?.attach(ctx);
    app = await buildApp(ctx, { logger: { ...loggerOptions(config.logLevel), stream: asyncStdout() } });
    const delivery = new DeliveryJob(ctx, systemClock);
    const sessionSweep = new SessionSweepJob(ctx, systemClock);
    const flushListener = await listenForCacheFlushes(ctx, app);
    ctx.now = () => systemClock.now();
    app.addHook("onClose", async () => {
      await delivery.stop();
      await sessionSweep.stop();
      await flushListener?.stop();
      await cluster?.stop();
      await ctx.db.destroy();
    });
    await logStartup(app, ctx, applied);
    await listen(app, config);
    if (cluster) {
      const nodeUrl = config.nodeUrl ?? listeningUrl(app);
      await cluster.start(nodeUrl);
      app.log.info(`Cluster: node ${cluster.nodeId} joined through Redis, reachable at ${nodeUrl}`);
    }
    // Everything that came due while the server was down is delivered now, then on time.
    void delivery.start();
    void sessionSweep.start();
    return { app, ctx, shutdown: (reason) => shutdown(app!, ctx, lock, reason) };
  } catch (err) {
    await app?.close().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    lock?.release();
    throw err;
  }
}

/**
 * With REDIS_URL: this process is a node of a cluster. Other nodes' cache changes flush
 * here; a gap in the event stream drops this node's queues (their clients re-register).
 */
function joinCluster(config: Config, warn: (message: string) => void): { cluster: Cluster; attach(ctx: AppContext): void } | undefined {
  if (config.redisUrl === undefined) return undefined;
  let ctx: AppContext | undefined;
  const cluster = new Cluster(config.redisUrl, config.redisPrefix, {
    onChange: (change) => ctx?.caches.apply(change),
    onGap: () => {
      warn("Cluster: events from other nodes may have been missed; event queues dropped (clients re-register), caches flushed");
      ctx?.eventQueues.dropAll();
      ctx?.caches.flushAll();
    },
    onError: warn,
  });
  return { cluster, attach: (c) => (ctx = c) };
}

/** The address this server listens on, as a URL other nodes can use (a wildcard host → loopback). */
function listeningUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the server is not listening on TCP");
  const host = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/** PostgreSQL: other processes (the CLI) announce their writes with NOTIFY; see src/caches. */
async function listenForCacheFlushes(ctx: AppContext, app: FastifyInstance): Promise<PostgresFlushListener | undefined> {
  if (ctx.config.databaseUrl === undefined) return undefined;
  const listener = new PostgresFlushListener(
    ctx.config.databaseUrl,
    () => ctx.caches.flushAll(),
    (err) => app.log.warn(`Cache invalidation connection lost (${err.message}); caches are bypassed until it is back`),
  );
  // Until LISTEN is in place (and whenever it is lost) every request flushes: nothing stale is served.
  ctx.caches.watchExternal({ changed: () => !listener.listening });
  await listener.start();
  return listener;
}

async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new StartupError(`Port ${config.port} on ${config.host} is already in use (another server?); stop it or set PORT to a free port.`);
    if (code === "EACCES") throw new StartupError(`Not allowed to listen on port ${config.port} on ${config.host}; set PORT to a port above 1023.`);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") throw new StartupError(`HOST ${config.host} is not an address of this machine.`);
    throw err;
  }
}

async function logStartup(app: FastifyInstance, ctx: AppContext, applied: string[]): Promise<void> {
  const { config } = ctx;
  const database = describeDatabase(config.databaseUrl, config.dataDir);
  app.log.info({ engine: ctx.dialect, dataDir: config.dataDir }, `Database: ${database}; data folder ${config.dataDir}`);
  app.log.info({ migrations: applied }, applied.length ? `Migrations applied: ${applied.join(", ")}` : "Migrations: the schema is up to date");
  const realms = (await listRealms(ctx.db)).filter((r) => !r.deactivated);
  const served = realms.map((r) => `${r.name} (${realmUrl(r.string_id, config.externalHost)})`);
  app.log.info(
    { organizations: realms.map((r) => r.string_id) },
    served.length ? `Organizations served: ${served.join(", ")}` : "No organization yet: create one with `parley create-realm`",
  );
}

async function shutdown(app: FastifyInstance, ctx: AppContext, lock: ServerLock | undefined, reason: string): Promise<void> {
  const queues = ctx.eventQueues.store.count();
  const connections = await new Promise<number>((resolve) => app.server.getConnections((err, n) => resolve(err ? 0 : n)));
  app.log.info(`Shutting down (${reason})`);
  await app.close();
  app.log.info(`Closed ${queues} event queue${queues === 1 ? "" : "s"} (waiting polls answered), ${connections} client connection${connections === 1 ? "" : "s"}, and the database (${describeDatabase(ctx.config.databaseUrl, ctx.config.dataDir)})`);
  if (lock) {
    lock.release();
    app.log.info(`Released the lock file ${lock.file}`);
  }
}
