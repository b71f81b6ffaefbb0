/**
 * Regression tests for the bugs the robustness suites found (each also caught by the fuzzer,
 * pinned here with exact answers so they stay fixed on both databases).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicAuth, expectError, injectChecked } from "../support/client.js";
import { seedObjects, snapshotDb, type RealmObjects } from "../support/fuzz.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { findUserByApiKey } from "../../src/db/queries/users.js";

let s: TestServer;
let A: RealmObjects;
beforeAll(async () => {
  s = await startTestServer();
  A = await seedObjects(s, "realm", "aqx");
});
afterAll(() => s?.close());

const get = (url: string) => injectChecked(s.app, { method: "GET", url: `/api/v1${url}`, headers: { host: s.realm.host, authorization: basicAuth(s.realm.member) } });

describe("URLs Fastify cannot route get the JSON error envelope", () => {
  it("an undecodable percent-encoding in a path segment", async () => {
    expectError(await get("/users/%ff"), "Malformed payload");
    expectError(await get("/users/%c3%28/presence"), "Malformed payload");
  });

  it("a valid email longer than 100 characters reaches the view", async () => {
    const email = `${"a".repeat(150)}@example.com`;
    expectError(await get(`/users/${encodeURIComponent(email)}`), "No such user");
  });

  it("an over-long path segment", async () => {
    expectError(await get(`/users/${"x".repeat(1500)}`), "Malformed payload");
  });
});

describe("NUL characters in lookups find nothing (PostgreSQL rejected them with a 500)", () => {
  it("channel name, user email in the path, presence, message recipient", async () => {
    const before = await snapshotDb(s.db);
    expectError(await get("/get_stream_id?stream=a%00b"), "Invalid channel name 'a\u0000b'");
    expectError(await get("/users/a%00b@example.com"), "No such user");
    expectError(await get("/users/a%00b@example.com/presence"), "No such user");
    const res = await s.api.post(s.realm.member, "/messages", { type: "direct", to: JSON.stringify(["a\u0000b@example.com"]), content: "hi" });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().msg).toBe("Invalid email 'a\u0000b@example.com'");
    expect(await snapshotDb(s.db)).toEqual(before);
  });
});

describe("NUL characters in free-text fields are refused before any write (PostgreSQL cannot store them)", () => {
  it("linkifier, channel description, profile field label and hint, profile data value", async () => {
    const { owner } = s.realm;
    const NUL = "a\u0000b";
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ["POST", "/realm/filters", { pattern: `x${NUL}(?P<id>[0-9]+)`, url_template: "https://e.example.net/{id}" }],
      ["POST", "/realm/filters", { pattern: "y(?P<id>[0-9]+)", url_template: `https://e.example.net/${NUL}{id}` }],
      ["PATCH", `/streams/${A.publicChannel.id}`, { description: NUL }],
      ["POST", "/users/me/subscriptions", { subscriptions: [{ name: "nul-desc", description: NUL }] }],
      ["POST", "/realm/profile_fields", { name: NUL, field_type: 1 }],
      ["POST", "/realm/profile_fields", { name: "hinted", hint: NUL, field_type: 1 }],
      ["PATCH", "/users/me/profile_data", { data: [{ id: A.profileFieldId, value: NUL }] }],
    ];
    for (const [method, path, params] of cases) {
      const before = await snapshotDb(s.db);
      expectError(await s.api.call(method, owner, path, params), "Text must not contain null bytes");
      expect(await snapshotDb(s.db), `${method} ${path}`).toEqual(before);
    }
  });
});

describe("a linkifier pattern too large to compile", () => {
  const huge = `${"x".repeat(200_000)}(?P<id>[0-9]+)`;

  it("is refused when added", async () => {
    const before = await snapshotDb(s.db);
    const res = await s.api.post(s.realm.owner, "/realm/filters", { pattern: huge, url_template: "https://e.example.net/{id}" });
    expect(res.json().msg).toBe("Bad regular expression: pattern too large - compile failed");
    expect(await snapshotDb(s.db)).toEqual(before);
  });

  it("already stored, is skipped by rendering instead of failing every message of the realm", async () => {
    await s.db.insertInto("linkifiers").values({ realm_id: s.realm.realm.id, pattern: huge, url_template: "https://e.example.net/{id}", order: 99 }).execute();
    try {
      const sent = await s.api.post(s.realm.member, "/messages", { type: "stream", to: A.publicChannel.name, topic: "xx7 topic", content: "still works xx7" });
      expect(sent.statusCode, sent.body.slice(0, 200)).toBe(200);
      const fetched = await s.api.get(s.realm.member, `/messages/${sent.json().id}`);
      expect(fetched.statusCode, fetched.body.slice(0, 200)).toBe(200);
    } finally {
      await s.db.deleteFrom("linkifiers").where("order", "=", 99).execute();
    }
  });
});

describe("bodies over the limit get the 413 envelope and change nothing", () => {
  it("form, multipart, JSON and unknown content types", async () => {
    const limit = s.ctx.config.maxRequestBytes;
    const auth = { host: s.realm.host, authorization: basicAuth(s.realm.member) };
    const boundary = "----bigboundary";
    const bodies: Array<[string, string]> = [
      ["application/x-www-form-urlencoded", `type=direct&to=%5B${s.realm.other.id}%5D&content=${"x".repeat(limit)}`],
      [
        "multipart/form-data; boundary=" + boundary,
        [["type", "direct"], ["to", `[${s.realm.other.id}]`], ["content", "x".repeat(limit)]]
          .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
          .join("") + `--${boundary}--\r\n`,
      ],
      ["application/json", JSON.stringify({ content: "x".repeat(limit) })],
      ["application/octet-stream", "x".repeat(limit + 1)],
    ];
    for (const [type, payload] of bodies) {
      const before = await snapshotDb(s.db);
      const res = await injectChecked(s.app, { method: "POST", url: "/api/v1/messages", headers: { ...auth, "content-type": type }, payload });
      expect(res.statusCode, `${type}: ${res.body.slice(0, 200)}`).toBe(413);
      expect(res.json()).toMatchObject({ result: "error", msg: "Request entity too large", code: "BAD_REQUEST" });
      expect(await snapshotDb(s.db)).toEqual(before);
    }
  });

  it("a multipart body with more parts than any endpoint reads", async () => {
    const boundary = "----manyparts";
    const payload = Array.from({ length: 120 }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="p${i}"\r\n\r\nv\r\n`).join("") + `--${boundary}--\r\n`;
    const before = await snapshotDb(s.db);
    const res = await injectChecked(s.app, {
      method: "POST",
      url: "/api/v1/messages",
      headers: { host: s.realm.host, authorization: basicAuth(s.realm.member), "content-type": `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(413);
    expect(res.json()).toMatchObject({ result: "error", msg: "Request entity too large", code: "BAD_REQUEST" });
    expect(await snapshotDb(s.db)).toEqual(before);
  });
});

describe("NUL bytes in precompiled reads", () => {
  it("a compiled-once lookup with a NUL parameter finds nothing, like any other read", async () => {
    // Precompiled queries keep their SELECT node, so the NUL guard substitutes instead of refusing.
    await expect(findUserByApiKey(s.db, "abc\u0000def")).resolves.toBeUndefined();
    const found = await findUserByApiKey(s.db, s.realm.member.api_key);
    expect(found?.user.id).toBe(s.realm.member.id);
  });
});
