/** Typed settings read once from the environment. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… selects PostgreSQL; undefined selects the embedded SQLite database. */
  databaseUrl: string | undefined;
  /** Host clients use, e.g. "localhost:9991"; realm URLs are http://{subdomain.}externalHost. */
  externalHost: string;
  /** Largest request body accepted, in bytes. */
  maxRequestBytes: number;
  /** Seconds a queue may sit without a poll before it is garbage-collected. */
  eventQueueIdleSeconds: number;
  /** Seconds a long-poll waits before answering with a heartbeat. */
  longPollSeconds: number;
  /** Whether a push notification service is configured (spec 4.14). */
  pushServiceConfigured: boolean;
  /** API requests allowed per user per minute (upstream: 200); 0 disables. */
  rateLimitPerMinute: number;
  /** Password attempts allowed per username per 30 minutes (upstream: 5); 0 disables. */
  loginAttemptsPer30Minutes: number;
  /** Log level for the server's structured log. */
  logLevel: string;
  /** Event queues one user may hold; registering past it drops the user's least recently polled queue. */
  eventQueuesPerUser: number;
  /** Event queues one user may create per minute (POST /register, GET /events without queue_id); 0 disables. */
  eventQueueCreationsPerMinute: number;
  /** Longest queue lifespan a client may ask for (upstream: 7 days). */
  eventQueueMaxLifespanSeconds: number;
  /** Events one queue holds; past it the queue is dropped and its client re-registers (BAD_EVENT_QUEUE_ID). */
  eventQueueMaxEvents: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intFromEnv(env.PORT, 9991);
  return {
    port,
    host: env.HOST || "127.0.0.1",
    dataDir: env.PARLEY_DATA_DIR || "./data",
    databaseUrl: env.DATABASE_URL || undefined,
    externalHost: env.PARLEY_EXTERNAL_HOST || `localhost:${port}`,
    maxRequestBytes: intFromEnv(env.PARLEY_MAX_REQUEST_BYTES, 1024 * 1024),
    eventQueueIdleSeconds: intFromEnv(env.PARLEY_EVENT_QUEUE_IDLE_SECONDS, 600),
    longPollSeconds: intFromEnv(env.PARLEY_LONG_POLL_SECONDS, 50),
    pushServiceConfigured: false,
    rateLimitPerMinute: intFromEnv(env.PARLEY_RATE_LIMIT_PER_MINUTE, 200),
    loginAttemptsPer30Minutes: intFromEnv(env.PARLEY_LOGIN_ATTEMPTS_PER_30_MINUTES, 5),
    logLevel: env.LOG_LEVEL || "info",
    eventQueuesPerUser: Math.max(1, intFromEnv(env.PARLEY_EVENT_QUEUES_PER_USER, 100)),
    eventQueueCreationsPerMinute: intFromEnv(env.PARLEY_EVENT_QUEUE_CREATIONS_PER_MINUTE, 60),
    eventQueueMaxLifespanSeconds: intFromEnv(env.PARLEY_EVENT_QUEUE_MAX_LIFESPAN_SECONDS, 7 * 24 * 3600),
    eventQueueMaxEvents: Math.max(1, intFromEnv(env.PARLEY_EVENT_QUEUE_MAX_EVENTS, 10_000)),
  };
}

function intFromEnv(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`Invalid integer in environment: ${value}`);
  return n;
}
