/**
 * The access log: one line per request with method, path (never the query string),
 * status and response time, and nothing else about the request (no headers).
 */
import { Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { contextFor, loggerOptions } from "../../src/server.js";
import { basicAuth } from "../support/client.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { seedRealm, type SeededRealm } from "../support/realm.js";
import { EXTERNAL_HOST } from "../support/server.js";
import type { FastifyInstance } from "fastify";

let testDb: TestDb;
let app: FastifyInstance;
let realm: SeededRealm;
const lines: string[] = [];

beforeAll(async () => {
  testDb = await createTestDb();
  const ctx = contextFor({ ...loadConfig({}), externalHost: EXTERNAL_HOST, rateLimitPerMinute: 0 }, testDb.db);
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  app = await buildApp(ctx, { logger: { ...loggerOptions("info"), stream } });
  realm = await seedRealm(ctx, "", "Logged Organization");
});
afterAll(async () => {
  await app.close();
  await testDb.drop();
});

it("writes one line per request: method, path without the query string, status, time", async () => {
  const before = lines.length;
  const res = await app.inject({ method: "GET", url: `/api/v1/users/me?secret=${realm.member.api_key}`, headers: { host: realm.host, authorization: basicAuth(realm.member) } });
  expect(res.statusCode).toBe(200);
  await app.inject({ method: "GET", url: "/api/v1/no/such/path?x=1", headers: { host: realm.host } });
  const logged = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(logged.map(({ method, path, statusCode, msg }) => ({ method, path, statusCode, msg }))).toEqual([
    { method: "GET", path: "/api/v1/users/me", statusCode: 200, msg: "request" },
    { method: "GET", path: "/api/v1/no/such/path", statusCode: 404, msg: "request" },
  ]);
  for (const entry of logged) expect(typeof entry.ms).toBe("number");
  const text = lines.slice(before).join("\n");
  expect(text).not.toContain(realm.member.api_key);
  expect(text.toLowerCase()).not.toContain("authorization");
});
