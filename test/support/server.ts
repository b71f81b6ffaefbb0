/**
 * startTestServer(): the real app on a fresh database, seeded with a realm of named
 * users of every role, and a client that speaks the API as clients do.
 */
import type { FastifyInstance } from "fastify";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config.js";
import type { AppContext } from "../../src/context.js";
import { contextFor } from "../../src/server.js";
import { createTestDb, type TestDb, type TestDbOptions } from "./db.js";
import { seedRealm, type SeededRealm } from "./realm.js";
import { ApiClient } from "./client.js";

import { EXTERNAL_HOST_FOR_CLIENT } from "./host.js";

export const EXTERNAL_HOST = EXTERNAL_HOST_FOR_CLIENT;

export interface TestServer {
  app: FastifyInstance;
  ctx: AppContext;
  db: AppContext["db"];
  /** The PostgreSQL URL of this server's database (a second app may open it); undefined on SQLite. */
  databaseUrl?: string;
  /** SQLite in a file: its path. */
  sqlitePath?: string;
  realm: SeededRealm;
  /** A second organization on subdomain "other", for cross-realm checks. */
  other: SeededRealm;
  api: ApiClient;
  /**
   * Runs fn and returns how many database queries it executed, starting from empty caches
   * (src/caches) unless `warm` is set.
   */
  countQueries(fn: () => Promise<unknown>, opts?: { warm?: boolean }): Promise<number>;
  close(): Promise<void>;
}

export async function startTestServer(overrides: Partial<Config> = {}, dbOptions: TestDbOptions = {}): Promise<TestServer> {
  const testDb: TestDb = await createTestDb(dbOptions);
  // Rate limits are off unless a test turns them on: suites send many requests as one user.
  // Files the server writes (the mail outbox) go to a folder of this test server's own.
  // Uploaded files go where a server on that database keeps them by default: the data
  // folder on SQLite, the database on PostgreSQL (loadConfig sees no DATABASE_URL here).
  const dataDir = mkdtempSync(join(tmpdir(), "parley-test-"));
  const config: Config = {
    ...loadConfig({}),
    dataDir,
    externalHost: EXTERNAL_HOST,
    rateLimitPerMinute: 0,
    loginAttemptsPer30Minutes: 0,
    eventQueueCreationsPerMinute: 0,
    fileStorage: testDb.url ? "database" : "folder",
    ...overrides,
  };
  const ctx = contextFor(config, testDb.db);
  const app = await buildApp(ctx);
  const realm = await seedRealm(ctx, "", "Test Organization");
  const other = await seedRealm(ctx, "other", "Other Organization");
  const api = new ApiClient(app);
  api.hosts.set(realm.realm.id, realm.host);
  api.hosts.set(other.realm.id, other.host);
  return {
    app,
    ctx,
    db: ctx.db,
    databaseUrl: testDb.url,
    sqlitePath: testDb.sqlitePath,
    realm,
    other,
    api,
    countQueries: async (fn, opts = {}) => {
      // From cold caches unless asked otherwise: a count must not depend on which requests came before.
      if (!opts.warm) ctx.caches.flushAll();
      const before = testDb.queryCount();
      await fn();
      return testDb.queryCount() - before;
    },
    close: async () => {
      await app.close();
      await testDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
