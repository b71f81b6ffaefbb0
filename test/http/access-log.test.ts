/**
 * The access log: one line per request with method, path (never the query string),
 * status and response time, and nothing else about the request (no headers).
 */
import net from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { contextFor, loggerOptions } from "../../src/server.js";
import { basicAuth } from "../support/client.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { listenLocally } from "../support/raw-http.js";
import { OWNER_PASSWORD, seedRealm, type SeededRealm } from "../support/realm.js";
import { TestBrowser } from "../support/browser.js";
import { EXTERNAL_HOST } from "../support/server.js";
import { ACCESS_LOG_DELAY_MS } from "../../src/http/access-log.js";
import type { FastifyInstance } from "fastify";

/** Lines go to the destination in blocks, at the latest ACCESS_LOG_DELAY_MS after a block's first line. */
const linesHandedOver = () => new Promise((resolve) => setTimeout(resolve, ACCESS_LOG_DELAY_MS + 10));

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
  await linesHandedOver();
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

it("logs no password, session token or CSRF token of a browser sign-in and its requests", async () => {
  const before = lines.length;
  const b = new TestBrowser(app, realm.host);
  expect((await b.login(realm.owner.delivery_email, OWNER_PASSWORD, { next: "/#narrow/secret-next" })).statusCode).toBe(303);
  const token = b.cookies.get("sessionid")!;
  const csrf = b.cookies.get("csrftoken")!;
  expect((await b.api("POST", "/users/me/status", { status_text: "logged?" })).statusCode).toBe(200);
  expect((await b.request("POST", "/accounts/logout/", { headers: { "x-csrftoken": b.cookies.get("csrftoken")! } })).statusCode).toBe(303);
  await linesHandedOver();
  const logged = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(logged.map(({ method, path, statusCode }) => `${String(method)} ${String(path)} ${String(statusCode)}`)).toEqual([
    "GET /login/ 200",
    "POST /accounts/login/ 303",
    "POST /json/users/me/status 200",
    "POST /accounts/logout/ 303",
  ]);
  const text = lines.slice(before).join("\n");
  for (const secret of [OWNER_PASSWORD, realm.owner.api_key, token, csrf, "csrftoken", "sessionid", "secret-next"]) expect(text).not.toContain(secret);
});

it("writes valid JSON lines in pino's shape whatever the path holds", async () => {
  const port = await listenLocally(app);
  const before = lines.length;
  // Raw bytes on a socket: the path reaches the server as sent, quotes and all.
  const status = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`GET /api/v1/a"b|c{d}\\e HTTP/1.1\r\nHost: ${realm.host}\r\nConnection: close\r\n\r\n`));
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => (text += c));
    socket.on("end", () => resolve(text.split("\r\n")[0]));
    socket.on("error", reject);
  });
  expect(status).toBe("HTTP/1.1 404 Not Found");
  await app.inject({ method: "PATCH", url: "/api/v1/users/me/%22x%22", headers: { host: realm.host } });
  await linesHandedOver();
  const logged = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(logged.map((l) => [l.method, l.path, l.statusCode])).toEqual([
    ["GET", '/api/v1/a"b|c{d}\\e', 404],
    ["PATCH", "/api/v1/users/me/%22x%22", 404],
  ]);
  for (const entry of logged) {
    expect(Object.keys(entry)).toEqual(["level", "time", "pid", "hostname", "method", "path", "statusCode", "ms", "msg"]);
    expect(entry.level).toBe(30);
    expect(entry.pid).toBe(process.pid);
  }
});

it("writes the line of a waiting GET /events when its queue answers it (the reply bypasses Fastify's send)", async () => {
  const auth = (user: typeof realm.member) => ({ host: realm.host, authorization: basicAuth(user), "content-type": "application/x-www-form-urlencoded" });
  const reg = await app.inject({ method: "POST", url: "/api/v1/register", headers: auth(realm.other), payload: new URLSearchParams({ event_types: '["message"]' }).toString() });
  const { queue_id, last_event_id } = reg.json() as { queue_id: string; last_event_id: number };
  const before = lines.length;
  const poll = app.inject({ method: "GET", url: `/api/v1/events?queue_id=${queue_id}&last_event_id=${last_event_id}`, headers: auth(realm.other) });
  await new Promise((r) => setTimeout(r, 100));
  const sent = await app.inject({ method: "POST", url: "/api/v1/messages", headers: auth(realm.member), payload: new URLSearchParams({ type: "direct", to: `[${realm.other.id}]`, content: "hi" }).toString() });
  expect(sent.statusCode).toBe(200);
  expect((await poll).statusCode).toBe(200);
  await linesHandedOver();
  const logged = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
  const answered = logged.filter((l) => l.path !== "/api/v1/register");
  expect(answered.map((l) => `${String(l.method)} ${String(l.path)} ${String(l.statusCode)}`).sort()).toEqual(["GET /api/v1/events 200", "POST /api/v1/messages 200"]);
  const waited = logged.find((l) => l.path === "/api/v1/events")!;
  expect(waited.ms as number, "the poll's time counts its wait").toBeGreaterThanOrEqual(90);
});
