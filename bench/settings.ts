/** The bench's settings, read once from the environment (see README, Performance). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
/** postgres://… runs the bench on PostgreSQL (an empty database); unset: SQLite in a temp dir. */
export const DATABASE_URL = process.env.BENCH_DATABASE_URL || undefined;
export const ENGINE = DATABASE_URL ? "postgresql" : "sqlite";
