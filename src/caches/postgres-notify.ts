/**
 * PostgreSQL has no data_version: a process that writes next to the running server (the
 * CLI) sends NOTIFY on this channel after its work, and the server LISTENs on a connection
 * of its own. While that connection is down the server cannot trust its caches, and says so.
 */
import pg from "pg";
import { sql } from "kysely";
import type { Db } from "../db/tx.js";

export const CACHE_FLUSH_CHANNEL = "parley_cache_flush";

/** Tells running servers that the data changed (the CLI, after a command). */
export async function notifyCacheFlush(db: Db): Promise<void> {
  await sql.raw(`NOTIFY ${CACHE_FLUSH_CHANNEL}`).execute(db);
}

export class PostgresFlushListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  /** False until LISTEN is in place and after the connection drops. */
  listening = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly onFlush: () => void,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  /** Connects and listens; on failure it retries every second (caches stay bypassed meanwhile). */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    this.client = client;
    client.on("notification", () => this.onFlush());
    client.on("error", (err) => this.lost(client, err));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CACHE_FLUSH_CHANNEL}`);
    } catch (err) {
      this.lost(client, err as Error);
      await client.end().catch(() => undefined);
      return;
    }
    if (this.client !== client) return;
    this.listening = true;
    // Anything written while nobody listened is unknown: start over.
    this.onFlush();
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== client) return;
    this.listening = false;
    this.client = undefined;
    if (this.stopped) return;
    if (err) this.onError(err);
    this.retry = setTimeout(() => void this.start(), 1000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }
}
