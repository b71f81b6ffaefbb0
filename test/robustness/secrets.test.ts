/**
 * Secrets never leak: no response of any route (other than fetch_api_key, and the bot keys
 * upstream returns in the register state) contains an API key or a password hash; the
 * server log (production logger settings, level trace) never contains an API key, a
 * password or the Authorization header.
 */
import { ACCESS_LOG_DELAY_MS } from "../../src/http/access-log.js";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config.js";
import { allRoutes } from "../../src/http/routes.js";
import { contextFor, loggerOptions } from "../../src/server.js";
import { ApiClient, basicAuth, expectSuccess, injectChecked, type Params } from "../support/client.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { allCredentials, encodeRaw, seedObjects, type RealmObjects } from "../support/fuzz.js";
import { EXTERNAL_HOST } from "../support/server.js";
import { OWNER_PASSWORD, seedRealm, type SeededRealm } from "../support/realm.js";
import type { TestServer } from "../support/server.js";
import { isAdmin } from "../../src/lib/roles.js";
import { TestBrowser } from "../support/browser.js";

/** The test server of test/support/server.ts, but with the production logger writing to memory. */
let s: TestServer;
let testDb: TestDb;
let A: RealmObjects;
const logLines: string[] = [];

beforeAll(async () => {
  testDb = await createTestDb();
  const config: Config = { ...loadConfig({}), externalHost: EXTERNAL_HOST, rateLimitPerMinute: 0, loginAttemptsPer30Minutes: 0, longPollSeconds: 1 };
  const ctx = contextFor(config, testDb.db);
  const stream = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const app = await buildApp(ctx, { logger: { ...loggerOptions("trace"), stream } });
  const realm: SeededRealm = await seedRealm(ctx, "", "Test Organization");
  const other: SeededRealm = await seedRealm(ctx, "other", "Other Organization");
  const api = new ApiClient(app);
  api.hosts.set(realm.realm.id, realm.host);
  api.hosts.set(other.realm.id, other.host);
  s = {
    app,
    ctx,
    db: ctx.db,
    realm,
    other,
    api,
    countQueries: async () => 0,
    close: async () => {
      await app.close();
      await testDb.drop();
    },
  };
  A = await seedObjects(s, "realm", "aqx");
  await seedObjects(s, "other", "bzq");
});
afterAll(() => s?.close());

/** Parameters that make each route succeed (or get far), so full records come back. */
function paramsFor(method: string, path: string): Params {
  const key = `${method} ${path}`;
  const table: Record<string, Params> = {
    "GET /messages": { anchor: "newest", num_before: 100, num_after: 0 },
    "POST /register": {},
    "GET /users": { include_custom_profile_fields: true },
    "GET /streams": { include_all: true },
    "GET /get_stream_id": { stream: A.publicChannel.name },
    "POST /messages": { type: "stream", to: A.publicChannel.name, topic: "t", content: "hello" },
    "POST /users/me/presence": { status: "active" },
    "GET /realm/presence": {},
    "PATCH /users/me/profile_data": { data: [{ id: A.profileFieldId, value: "x" }] },
    "POST /users/me/subscriptions": { subscriptions: [{ name: A.publicChannel.name }] },
    "GET /users/me/subscriptions": { include_subscribers: true },
  };
  return table[key] ?? {};
}

function fill(path: string): string {
  const ids: Record<string, number> = { stream_id: A.publicChannel.id, message_id: A.channelMessageId, user_id: s.realm.bot.id, filter_id: A.linkifierId };
  return path.replace(/\{(\w+):int\}/g, (_, n: string) => String(ids[n] ?? 1)).replace(/\{\w+\*?\}/g, encodeURIComponent(s.realm.bot.delivery_email));
}

const ROLES = ["owner", "admin", "moderator", "member", "guest", "bot"] as const;

describe("responses carry no credentials", () => {
  it("every route, every role", async () => {
    let checked = 0;
    for (const r of allRoutes) {
      if (r.path === "/fetch_api_key") continue;
      if (r.method === "DELETE" && r.path.startsWith("/users/")) continue; // keep the cast active
      for (const role of ROLES) {
        const caller = s.realm[role];
        const res = await s.api.call(r.method, caller, fill(r.path), paramsFor(r.method, r.path));
        expect(res.statusCode, `${role} ${r.method} ${r.path}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
        for (const c of await allCredentials(s.db)) {
          if (!res.body.includes(c.secret)) continue;
          // Upstream's register state lists bots with their API keys for their owner and for administrators.
          const allowed = r.path === "/register" && c.isBot && c.realmId === caller.realm_id && (c.ownerId === caller.id || isAdmin(caller));
          expect(allowed, `${role} ${r.method} ${r.path} returned user ${c.userId}'s credential`).toBe(true);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(allRoutes.length * 4);
  });

  it("the register state gives the bot's key to its owner and administrators only", async () => {
    const keyOf = (body: Record<string, any>) => (body.realm_bots as Array<{ user_id: number; api_key?: string }> | undefined)?.find((b) => b.user_id === s.realm.bot.id)?.api_key;
    expect(keyOf(expectSuccess(await s.api.post(s.realm.member, "/register", { fetch_event_types: ["realm_bot"] })))).toBe(s.realm.bot.api_key);
    for (const role of ["moderator", "other", "guest"] as const) {
      const body = expectSuccess(await s.api.post(s.realm[role], "/register", { fetch_event_types: ["realm_bot"] }));
      expect(JSON.stringify(body).includes(s.realm.bot.api_key), role).toBe(false);
    }
  });
});

describe("the server log carries no credentials", () => {
  it("across authenticated calls, failures and fetch_api_key in body, query, multipart and JSON", async () => {
    const { owner, member } = s.realm;
    const host = s.realm.host;
    const wrong = "Not-The-Password-7731";
    const form = (params: Record<string, string>) => Object.entries(params).map(([k, v]) => `${k}=${encodeRaw({ text: v })}`).join("&");
    const good = { username: owner.delivery_email, password: OWNER_PASSWORD };
    const bad = { username: owner.delivery_email, password: wrong };
    const inject = (method: string, url: string, payload?: string, headers: Record<string, string> = {}) =>
      injectChecked(s.app, { method: method as "GET", url, payload, headers: { host, ...headers } });
    logLines.length = 0;

    expect((await inject("POST", "/api/v1/fetch_api_key", form(good), { "content-type": "application/x-www-form-urlencoded" })).statusCode).toBe(200);
    expect((await inject("POST", "/api/v1/fetch_api_key", form(bad), { "content-type": "application/x-www-form-urlencoded" })).statusCode).toBe(401);
    expect((await inject("POST", `/api/v1/fetch_api_key?${form(good)}`)).statusCode).toBe(200);
    expect((await inject("POST", `/api/v1/fetch_api_key?${form(bad)}`)).statusCode).toBe(401);
    expect((await inject("GET", `/api/v1/fetch_api_key?${form(good)}`)).statusCode).toBe(405);
    const boundary = "----logtestboundary";
    const multipart = Object.entries(good).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join("") + `--${boundary}--\r\n`;
    expect((await inject("POST", "/api/v1/fetch_api_key", multipart, { "content-type": `multipart/form-data; boundary=${boundary}` })).statusCode).toBe(200);
    await inject("POST", "/api/v1/fetch_api_key", JSON.stringify(good), { "content-type": "application/json" });
    // An authenticated multipart request: the multipart parser logs its options (with the headers) at trace level.
    const sendParts = `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\ndirect\r\n--${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\n[${s.realm.other.id}]\r\n--${boundary}\r\nContent-Disposition: form-data; name="topic"\r\n\r\nt\r\n--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\nhi\r\n--${boundary}--\r\n`;
    const sent = await inject("POST", "/api/v1/messages", sendParts, { authorization: basicAuth(member), "content-type": `multipart/form-data; boundary=${boundary}` });
    expect(sent.statusCode, sent.body).toBe(200);
    // Authenticated calls: success, errors, an unknown path, a bad URL, an over-large body, a wrong key.
    await inject("GET", "/api/v1/users/me", undefined, { authorization: basicAuth(member) });
    await inject("GET", `/api/v1/users/me?api_key=${member.api_key}&password=${wrong}`, undefined, { authorization: basicAuth(member) });
    await inject("GET", "/api/v1/no/such/path", undefined, { authorization: basicAuth(member) });
    await inject("GET", "/api/v1/users/%ff", undefined, { authorization: basicAuth(member) });
    await inject("POST", "/api/v1/messages", "content=" + "x".repeat(1_100_000), { authorization: basicAuth(member), "content-type": "application/x-www-form-urlencoded" });
    await inject("GET", "/api/v1/users/me", undefined, { authorization: basicAuth({ delivery_email: member.delivery_email, api_key: owner.api_key }) });
    await inject("GET", "/api/v1/users/me", undefined, { authorization: `Basic ${Buffer.from(`${member.delivery_email}:${wrong}`).toString("base64")}` });
    await inject("POST", "/api/v1/users", form({ email: "new-log@example.com", password: "another long passphrase 99", full_name: "Log Test" }), {
      authorization: basicAuth(owner),
      "content-type": "application/x-www-form-urlencoded",
    });

    // A browser: sign-in, a multipart upload by session (cookie and X-CSRFToken in the headers), logout.
    const browser = new TestBrowser(s.app, s.realm.host);
    expect((await browser.login(owner.delivery_email, OWNER_PASSWORD)).statusCode).toBe(303);
    const sessionToken = browser.cookies.get("sessionid")!;
    const csrfToken = browser.cookies.get("csrftoken")!;
    const upload = await inject("POST", "/json/messages", sendParts, { cookie: browser.cookieHeader(), "x-csrftoken": csrfToken, "content-type": `multipart/form-data; boundary=${boundary}` });
    expect(upload.statusCode, upload.body).toBe(200);
    const sessionSecrets = await allCredentials(s.db);
    await browser.request("POST", "/accounts/logout/", { headers: { "x-csrftoken": csrfToken } });

    // The access log hands its lines over in blocks, at the latest this long after a block's first line.
    await new Promise((resolve) => setTimeout(resolve, ACCESS_LOG_DELAY_MS + 10));
    const log = logLines.join("");
    if (process.env.LOG_DEBUG) console.log(log);
    // The access lines of these requests are part of what is checked.
    expect(log).toContain('"method":"GET","path":"/api/v1/users/me","statusCode":200');
    expect(log).toContain('"method":"POST","path":"/api/v1/fetch_api_key","statusCode":200');
    expect(log).toContain('"method":"POST","path":"/accounts/logout/"');
    for (const secret of [sessionToken, csrfToken, ...sessionSecrets.map((c) => c.secret)]) {
      const at = log.indexOf(secret);
      expect(at, `log contains a session secret: …${log.slice(Math.max(0, at - 200), at + 50)}`).toBe(-1);
    }
    // Lines, not writes: the access log hands several over in one write (how many depends on timing).
    expect(log.split("\n").filter(Boolean).length, "the trace logger wrote request lines").toBeGreaterThan(10);
    const forbidden = [OWNER_PASSWORD, encodeRaw({ text: OWNER_PASSWORD }), wrong, "another long passphrase 99", encodeRaw({ text: "another long passphrase 99" })];
    for (const c of await allCredentials(s.db)) forbidden.push(c.secret);
    for (const u of [owner, member]) forbidden.push(basicAuth(u), basicAuth(u).slice("Basic ".length));
    for (const secret of forbidden) {
      const at = log.indexOf(secret);
      expect(at, `log contains a credential: …${log.slice(Math.max(0, at - 200), at + 50)}`).toBe(-1);
    }
    // Header copies may appear only redacted.
    expect(log).not.toMatch(/"authorization":"(?!\[Redacted\])/i);
    expect(log.toLowerCase()).not.toContain("basic ");
  });
});
