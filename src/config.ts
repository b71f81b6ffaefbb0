/** Typed settings read once from the environment. */
import { databaseUrlProblem } from "./db/location.js";

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
  /** API requests allowed per user per minute (upstream: 200); 0 disables. */
  rateLimitPerMinute: number;
  /** Password attempts allowed per username per 30 minutes (upstream: 5); 0 disables. */
  loginAttemptsPer30Minutes: number;
  /** How long a browser session lasts after sign-in, in seconds (upstream: two weeks). */
  sessionAgeSeconds: number;
  /** Whether X-Forwarded-Proto is believed (a TLS-terminating proxy in front): session cookies get Secure behind HTTPS. */
  trustProxy: boolean;
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
  /** Default validity of an invitation, in minutes (upstream: 14400, ten days). */
  invitationLinkValidityMinutes: number;
  /** Invitation emails an organization may send per 24 hours (upstream default: 100). */
  invitesPerDay: number;
  /** Largest uploaded file, in MiB (upstream MAX_FILE_UPLOAD_SIZE, 25). */
  maxFileUploadMib: number;
  /** smtp://… or smtps://… for outgoing mail; undefined writes mail to {dataDir}/outbox. */
  smtpUrl: string | undefined;
  /** The From address of mail the server sends. */
  mailFrom: string;
  /** The push relay's key pairs, base64 public key → base64 private key (spec 4.14). */
  pushRelayKeys: ReadonlyMap<string, string>;
  /** Messages deleted per transaction by POST /streams/{id}/delete_topic (upstream: 100). */
  deleteTopicBatchSize: number;
  /** Milliseconds delete_topic works before answering `complete: false` (upstream: 50 s). */
  deleteTopicBudgetMs: number;
  /** redis://… joins this process to a cluster of Parley nodes (src/cluster); undefined: one node. */
  redisUrl: string | undefined;
  /** Starts every Redis key of this cluster (several clusters may share one Redis). */
  redisPrefix: string;
  /** Where uploaded files and custom emoji images are kept (src/storage): the database (every node sees them) or {dataDir}/uploads/. */
  fileStorage: FileStorageKind;
  /** The URL other nodes reach this one at (GET /events is forwarded to a queue's node); undefined: http://HOST:PORT as listening. */
  nodeUrl: string | undefined;
  /** The built web app (scripts/build-web.mjs); undefined: dist/web of this installation. */
  webDir?: string;
}

export type FileStorageKind = "database" | "folder";

/** PARLEY_FILE_STORAGE, by default the database on PostgreSQL (shared by every node) and the data folder on SQLite (as before). */
function fileStorageFromEnv(value: string | undefined, databaseUrl: string | undefined): FileStorageKind {
  if (value === undefined || value === "") return databaseUrl ? "database" : "folder";
  if (value === "database" || value === "folder") return value;
  throw new ConfigError(`Invalid PARLEY_FILE_STORAGE: ${value} (expected database or folder)`);
}

/** A setting the server cannot work with; its message is one line meant for the operator. */
export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intFromEnv(env.PORT, 9991);
  const urlProblem = env.DATABASE_URL ? databaseUrlProblem(env.DATABASE_URL) : undefined;
  if (urlProblem) throw new ConfigError(urlProblem);
  const pushKeys = pushKeyPairsFromEnv(env.PARLEY_PUSH_RELAY_KEYS);
  return {
    port,
    host: env.HOST || "127.0.0.1",
    dataDir: env.PARLEY_DATA_DIR || "./data",
    databaseUrl: env.DATABASE_URL || undefined,
    externalHost: env.PARLEY_EXTERNAL_HOST || `localhost:${port}`,
    maxRequestBytes: intFromEnv(env.PARLEY_MAX_REQUEST_BYTES, 1024 * 1024),
    eventQueueIdleSeconds: intFromEnv(env.PARLEY_EVENT_QUEUE_IDLE_SECONDS, 600),
    longPollSeconds: intFromEnv(env.PARLEY_LONG_POLL_SECONDS, 50),
    rateLimitPerMinute: intFromEnv(env.PARLEY_RATE_LIMIT_PER_MINUTE, 200),
    loginAttemptsPer30Minutes: intFromEnv(env.PARLEY_LOGIN_ATTEMPTS_PER_30_MINUTES, 5),
    sessionAgeSeconds: Math.max(1, intFromEnv(env.PARLEY_SESSION_AGE_SECONDS, 14 * 24 * 3600)),
    trustProxy: booleanFromEnv("PARLEY_TRUST_PROXY", env.PARLEY_TRUST_PROXY),
    logLevel: env.LOG_LEVEL || "info",
    eventQueuesPerUser: Math.max(1, intFromEnv(env.PARLEY_EVENT_QUEUES_PER_USER, 100)),
    eventQueueCreationsPerMinute: intFromEnv(env.PARLEY_EVENT_QUEUE_CREATIONS_PER_MINUTE, 60),
    eventQueueMaxLifespanSeconds: intFromEnv(env.PARLEY_EVENT_QUEUE_MAX_LIFESPAN_SECONDS, 7 * 24 * 3600),
    eventQueueMaxEvents: Math.max(1, intFromEnv(env.PARLEY_EVENT_QUEUE_MAX_EVENTS, 10_000)),
    invitationLinkValidityMinutes: intFromEnv(env.PARLEY_INVITATION_LINK_VALIDITY_MINUTES, 14400),
    invitesPerDay: intFromEnv(env.PARLEY_INVITES_PER_DAY, 100),
    maxFileUploadMib: intFromEnv(env.PARLEY_MAX_FILE_UPLOAD_MIB, 25),
    smtpUrl: env.PARLEY_SMTP_URL || undefined,
    mailFrom: env.PARLEY_MAIL_FROM || `noreply@${(env.PARLEY_EXTERNAL_HOST || "localhost").replace(/:\d+$/, "")}`,
    pushRelayKeys: pushKeys,
    deleteTopicBatchSize: Math.max(1, intFromEnv(env.PARLEY_DELETE_TOPIC_BATCH_SIZE, 100)),
    deleteTopicBudgetMs: intFromEnv(env.PARLEY_DELETE_TOPIC_SECONDS, 50) * 1000,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.PARLEY_REDIS_PREFIX || "parley:",
    nodeUrl: env.PARLEY_NODE_URL || undefined,
    fileStorage: fileStorageFromEnv(env.PARLEY_FILE_STORAGE, env.DATABASE_URL),
    webDir: env.PARLEY_WEB_DIR || undefined,
  };
}

function intFromEnv(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`Invalid integer in environment: ${value}`);
  return n;
}

function booleanFromEnv(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "false") return false;
  if (value === "true") return true;
  throw new ConfigError(`Invalid ${name}: ${value} (expected true or false)`);
}

/** "PUBLIC:PRIVATE[,PUBLIC:PRIVATE…]", each key standard base64 of 32 bytes. */
function pushKeyPairsFromEnv(value: string | undefined): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const item of (value ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
    const [pub, priv, extra] = item.split(":");
    const ok = (k: string | undefined) => k !== undefined && /^[A-Za-z0-9+/]{43}=$/.test(k);
    if (extra !== undefined || !ok(pub) || !ok(priv)) throw new ConfigError("Invalid PARLEY_PUSH_RELAY_KEYS: expected PUBLIC:PRIVATE pairs of base64 keys");
    pairs.set(pub!, priv!);
  }
  return pairs;
}

/** Whether the push notification service is configured (spec 4.14): the relay's key pairs are set. */
export function pushServiceConfigured(config: Pick<Config, "pushRelayKeys">): boolean {
  return config.pushRelayKeys.size > 0;
}
