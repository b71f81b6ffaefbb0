/** The shared HTTP core (auth, routing, parameters, envelopes), exercised through the users endpoints. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { basicAuth, expectError, expectSuccess, injectChecked } from "../support/client.js";
import { doCreateUser } from "../../src/actions/users-create.js";
import { BotType, Role } from "../../src/lib/roles.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const HOST = "testserver.local";
const rawGet = (path: string, headers: Record<string, string> = {}) =>
  injectChecked(s.app, { method: "GET", url: `/api/v1${path}`, headers: { host: HOST, ...headers } });
const b64 = (t: string) => Buffer.from(t).toString("base64");
const unauthorized = (res: Awaited<ReturnType<typeof rawGet>>, msg: string) => {
  expectError(res, msg, { status: 401, code: "UNAUTHORIZED" });
  expect(res.headers["www-authenticate"]).toMatch(/^Basic realm=/);
};

describe("authentication failures", () => {
  it("no credentials", async () => {
    unauthorized(await rawGet("/users/me"), "Not logged in: API authentication or user session required");
  });

  it("a scheme other than Basic is a 400", async () => {
    expectError(await rawGet("/users/me", { authorization: "Bearer abc" }), "This endpoint requires HTTP basic authentication.");
  });

  it("undecodable or malformed Basic credentials", async () => {
    unauthorized(await rawGet("/users/me", { authorization: "Basic !!!" }), "Invalid authorization header for basic auth");
    unauthorized(await rawGet("/users/me", { authorization: `Basic ${b64("no-colon")}` }), "Invalid authorization header for basic auth");
    unauthorized(await rawGet("/users/me", { authorization: `Basic ${b64("a:b:c")}` }), "Invalid authorization header for basic auth");
  });

  it("malformed and unknown API keys, and a key sent with another user's email", async () => {
    const { member, other } = s.realm;
    unauthorized(await rawGet("/users/me", { authorization: `Basic ${b64(`${member.delivery_email}:short`)}` }), "Malformed API key");
    unauthorized(await rawGet("/users/me", { authorization: `Basic ${b64(`${member.delivery_email}:${"a".repeat(32)}`)}` }), "Invalid API key");
    unauthorized(await rawGet("/users/me", { authorization: `Basic ${b64(`${other.delivery_email}:${member.api_key}`)}` }), "Invalid API key");
  });

  it("accepts the email in any case with surrounding spaces", async () => {
    const { member } = s.realm;
    const res = await rawGet("/users/me", { authorization: `Basic ${b64(` ${member.delivery_email.toUpperCase()} : ${member.api_key} `)}` });
    expect(expectSuccess(res).user_id).toBe(member.id);
  });

  it("deactivated organization, then deactivated user, then wrong subdomain", async () => {
    const { member } = s.other;
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", member.id).execute();
    await s.db.updateTable("realms").set({ deactivated: 1 }).where("id", "=", s.other.realm.id).execute();
    try {
      // Wrong host too: the realm check still comes first.
      unauthorized(await rawGet("/users/me", { authorization: basicAuth(member) }), "This organization has been deactivated");
      await s.db.updateTable("realms").set({ deactivated: 0 }).where("id", "=", s.other.realm.id).execute();
      unauthorized(await rawGet("/users/me", { authorization: basicAuth(member) }), "Account is deactivated");
      await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", member.id).execute();
      unauthorized(await rawGet("/users/me", { authorization: basicAuth(member) }), "Account is not associated with this subdomain");
      expectSuccess(await s.api.get(member, "/users/me"));
    } finally {
      await s.db.updateTable("realms").set({ deactivated: 0 }).where("id", "=", s.other.realm.id).execute();
      await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", member.id).execute();
    }
  });

  it("incoming-webhook bots cannot call normal endpoints", async () => {
    const hook = await doCreateUser(s.ctx, s.realm.realm, {
      email: "hook-bot@example.com",
      fullName: "Hook Bot",
      password: null,
      role: Role.MEMBER,
      isBot: true,
      botType: BotType.INCOMING_WEBHOOK,
      botOwnerId: s.realm.member.id,
    });
    unauthorized(await s.api.get(hook, "/users/me"), "This API is not available to incoming webhook bots.");
  });
});

describe("routing", () => {
  it("answers JSON 404 for an unknown path", async () => {
    const res = await s.api.get(s.realm.member, "/no/such/endpoint");
    expectError(res, "Not Found", { status: 404, code: "NOT_FOUND" });
    expect(res.headers["content-type"]).toMatch(/application\/json/);
  });

  it("answers JSON 405 with allowed_methods before authentication", async () => {
    const res = await s.api.call("PUT", null, "/users/me");
    expect(res.statusCode).toBe(405);
    expect(res.json()).toMatchObject({ result: "error", msg: "Method Not Allowed", allowed_methods: ["GET", "DELETE", "HEAD"] });
    const users = await s.api.call("PATCH", null, "/users");
    expect(users.json().allowed_methods).toEqual(["GET", "POST", "HEAD"]);
  });

  it("answers OPTIONS with 204 and a sorted Allow header", async () => {
    const res = await injectChecked(s.app, { method: "OPTIONS", url: `/api/v1/users/${s.realm.member.id}`, headers: { host: HOST } });
    expect(res.statusCode).toBe(204);
    expect(res.headers.allow).toBe("DELETE, GET, HEAD, PATCH");
    expect(res.body).toBe("");
  });

  it("ends JSON bodies with a newline and never caches", async () => {
    const res = await s.api.get(s.realm.member, "/users/me");
    expect(res.body.endsWith("}\n")).toBe(true);
    expect(res.headers["cache-control"]).toMatch(/no-store/);
  });
});

describe("parameters", () => {
  const target = () => s.realm.other;
  const name = async () => (await s.db.selectFrom("users").select("full_name").where("id", "=", target().id).executeTakeFirstOrThrow()).full_name;

  it("reads PATCH and DELETE parameters from the query string", async () => {
    expectSuccess(await s.api.patch(s.realm.admin, `/users/${target().id}`, { full_name: "Query Name" }, { inQuery: true }));
    expect(await name()).toBe("Query Name");
    const res = await s.api.delete(s.realm.admin, `/users/${target().id}`, { deactivation_notification_comment: "x".repeat(2001) }, { inQuery: true });
    expectError(res, "deactivation_notification_comment is too long (limit: 2000 characters)");
  });

  it("lets the body win over the query string", async () => {
    const res = await injectChecked(s.app, {
      method: "PATCH",
      url: `/api/v1/users/${target().id}?full_name=From%20Query`,
      headers: { host: HOST, authorization: basicAuth(s.realm.admin), "content-type": "application/x-www-form-urlencoded" },
      payload: "full_name=From%20Body",
    });
    expectSuccess(res);
    expect(await name()).toBe("From Body");
  });

  it("parses multipart/form-data bodies", async () => {
    const boundary = "----parleyboundary42";
    const payload =
      `--${boundary}\r\nContent-Disposition: form-data; name="full_name"\r\n\r\nMulti Part\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="role"\r\n\r\n400\r\n` +
      `--${boundary}--\r\n`;
    const res = await injectChecked(s.app, {
      method: "PATCH",
      url: `/api/v1/users/${target().id}`,
      headers: { host: HOST, authorization: basicAuth(s.realm.admin), "content-type": `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expectSuccess(res);
    expect(await name()).toBe("Multi Part");
  });

  it("does not parse JSON bodies: their parameters are absent", async () => {
    const res = await injectChecked(s.app, {
      method: "POST",
      url: "/api/v1/users",
      headers: { host: HOST, authorization: basicAuth(s.realm.owner), "content-type": "application/json" },
      payload: JSON.stringify({ email: "j@example.com", password: "s3cret-pw", full_name: "Jay Son" }),
    });
    expectError(res, "Missing 'email' argument", { code: "REQUEST_VARIABLE_MISSING" });
  });

  it("reports ignored parameters sorted, never `client`", async () => {
    const res = await s.api.patch(s.realm.admin, `/users/${target().id}`, { zeta: 1, alpha: 2, client: "test-suite", full_name: "Otto Other" });
    const body = res.json();
    expect(body.result).toBe("success");
    expect(body.ignored_parameters_unsupported).toEqual(["alpha", "zeta"]);
    const clean = await s.api.get(s.realm.member, "/users", { client: "x" });
    expect(clean.json().ignored_parameters_unsupported).toBeUndefined();
  });

  it("never reports parameters on errors", async () => {
    const body = (await s.api.patch(s.realm.admin, "/users/999999", { junk: 1 })).json();
    expect(body).toEqual({ result: "error", msg: "No such user", code: "BAD_REQUEST" });
  });

  it("rejects oversized bodies with a JSON 413", async () => {
    const res = await injectChecked(s.app, {
      method: "PATCH",
      url: `/api/v1/users/${target().id}`,
      headers: { host: HOST, authorization: basicAuth(s.realm.admin), "content-type": "application/x-www-form-urlencoded" },
      payload: `full_name=${"x".repeat(s.ctx.config.maxRequestBytes + 10)}`,
    });
    expectError(res, "Request entity too large", { status: 413 });
  });

  it("parses booleans strictly", async () => {
    const m = s.realm.member;
    expectError(await s.api.get(m, "/users", { client_hashavatar: "True" }), "client_hashavatar is not valid JSON");
    expectError(await s.api.get(m, "/users", { client_hashavatar: "yes" }), "client_hashavatar is not valid JSON");
    expectError(await s.api.get(m, "/users", { client_hashavatar: "1" }), "client_hashavatar is not a boolean");
    expectError(await s.api.get(m, "/users", { client_hashavatar: '"true"' }), "client_hashavatar is not a boolean");
    expectError(await s.api.get(m, "/users", { client_hashavatar: "null" }), "client_hashavatar is not a boolean");
    expectSuccess(await s.api.get(m, "/users", { client_hashavatar: "false" }));
  });

  it("parses integers strictly", async () => {
    const url = `/users/${target().id}`;
    const a = s.realm.admin;
    expectError(await s.api.patch(a, url, { role: "abc" }), "role is not valid JSON");
    expectError(await s.api.patch(a, url, { role: "1.5" }), "role is not an integer");
    expectError(await s.api.patch(a, url, { role: '"400"' }), "role is not an integer");
    expectError(await s.api.patch(a, url, { role: "null" }), "role is not an integer");
    expectError(await s.api.patch(a, url, { role: "true" }), "role is not an integer");
    expectError(await s.api.patch(a, url, { role: "401" }), "Invalid role");
  });

  it("treats non-digit path segments as a different route", async () => {
    // /users/abc is the by-email lookup, not the by-id one.
    expectError(await s.api.get(s.realm.member, "/users/abc"), "No such user");
    const res = await s.api.delete(s.realm.admin, "/users/abc");
    expect(res.statusCode).toBe(405);
  });
});
