/** The bench's settings, read once from the environment (see README, Performance). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/**
 * Seconds of each measurement's own load run first and not counted (0: none): a row's first
 * requests in a fresh server build its caches (the 10k-user list, presence) and compile its
 * code, which inside a 5 s run of /register at 10k users was a third of the time.
 */
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
/** postgres://… runs the bench on PostgreSQL (an empty database); unset: SQLite in a temp dir. */
export const DATABASE_URL = process.env.BENCH_DATABASE_URL || undefined;
export const ENGINE = DATABASE_URL ? "postgresql" : "sqlite";
