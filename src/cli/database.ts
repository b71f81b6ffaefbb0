/**
 * The database a command works on: the server's own (PARLEY_DATA_DIR or DATABASE_URL),
 * named on stderr first. A command that should find existing data refuses to create a new,
 * empty SQLite file (a mistyped data folder would otherwise silently split the data).
 */
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config.js";
import type { AppContext } from "../context.js";
import { describeDatabase, sqlitePathFor } from "../db/location.js";
import { createContext } from "../server.js";
import { notifyCacheFlush } from "../caches/postgres-notify.js";
import { CommandError } from "./usage-error.js";

export function announceDatabase(config: Config): void {
  const source = config.databaseUrl === undefined ? `PARLEY_DATA_DIR=${config.dataDir}` : "DATABASE_URL";
  process.stderr.write(`parley: using ${describeDatabase(config.databaseUrl, config.dataDir)} (${source})\n`);
}

export function checkDatabaseExists(config: Config): void {
  if (config.databaseUrl !== undefined) return;
  const file = sqlitePathFor(config.dataDir);
  if (!fs.existsSync(file)) {
    throw new CommandError(
      `no database at ${path.resolve(file)}: set PARLEY_DATA_DIR to the server's data folder (or DATABASE_URL), or create one with 'parley create-realm'`,
    );
  }
}

/**
 * Opens (and migrates) the database for one command, closing it when `work` ends. A server
 * running on the same database learns that its caches may be stale: on SQLite by itself
 * (the WAL's commit counter), on PostgreSQL from a NOTIFY sent here, after the command's writes.
 */
export async function withDatabase<T>(config: Config, work: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await createContext(config);
  try {
    return await work(ctx);
  } finally {
    if (ctx.dialect === "postgres") await notifyCacheFlush(ctx.db).catch(() => undefined);
    await ctx.db.destroy();
  }
}
