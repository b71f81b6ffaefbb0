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
  /** Messages deleted per transaction by POST /streams/{id}/delete_topic (upstream: 100). */
  deleteTopicBatchSize: number;
  /** Milliseconds delete_topic works before answering `complete: false` (upstream: 50 s). */
  deleteTopicBudgetMs: number;
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
    deleteTopicBatchSize: Math.max(1, intFromEnv(env.PARLEY_DELETE_TOPIC_BATCH_SIZE, 100)),
    deleteTopicBudgetMs: intFromEnv(env.PARLEY_DELETE_TOPIC_SECONDS, 50) * 1000,
  };
}

function intFromEnv(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`Invalid integer in environment: ${value}`);
  return n;
}
