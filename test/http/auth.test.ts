import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { OWNER_PASSWORD } from "../support/realm.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("POST /fetch_api_key", () => {
  it("returns the API key for the right password", async () => {
    const { owner } = s.realm;
    const body = expectSuccess(await s.api.post(null, "/fetch_api_key", { username: owner.delivery_email, password: OWNER_PASSWORD }));
    expect(body).toEqual({ result: "success", msg: "", api_key: owner.api_key, email: owner.delivery_email, user_id: owner.id });
  });

  it("accepts the email in any case", async () => {
    const { owner } = s.realm;
    const res = await s.api.post(null, "/fetch_api_key", { username: owner.delivery_email.toUpperCase(), password: OWNER_PASSWORD });
    expect(expectSuccess(res).api_key).toBe(owner.api_key);
  });

  it("rejects a wrong password and an unknown user alike", async () => {
    const wrong = await s.api.post(null, "/fetch_api_key", { username: s.realm.owner.delivery_email, password: "nope-nope" });
    expectError(wrong, "Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
    const unknown = await s.api.post(null, "/fetch_api_key", { username: "nobody@example.com", password: "nope-nope" });
    expectError(unknown, "Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
  });

  it("does not authenticate a user of another realm on this host", async () => {
    const res = await s.api.post(null, "/fetch_api_key", { username: s.other.owner.delivery_email, password: OWNER_PASSWORD });
    expectError(res, "Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
    const there = await s.api.post(null, "/fetch_api_key", { username: s.other.owner.delivery_email, password: OWNER_PASSWORD }, { host: s.other.host });
    expect(expectSuccess(there).user_id).toBe(s.other.owner.id);
  });

  it("validates parameters in order", async () => {
    expectError(await s.api.post(null, "/fetch_api_key", {}), "Missing 'username' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(null, "/fetch_api_key", { username: "x@y.z" }), "Missing 'password' argument", {
      code: "REQUEST_VARIABLE_MISSING",
    });
    expectError(await s.api.post(null, "/fetch_api_key", { username: "not-an-email", password: "x" }), "Enter a valid email address.");
  });

  it("answers 404 for an unknown subdomain", async () => {
    const res = await s.api.post(null, "/fetch_api_key", { username: "a@b.c", password: "x" }, { host: "nowhere.testserver.local" });
    expectError(res, "Invalid subdomain", { status: 404, code: "NONEXISTENT_SUBDOMAIN" });
  });

  it("only accepts POST, with a JSON 405", async () => {
    const res = await s.api.get(null, "/fetch_api_key");
    expect(res.statusCode).toBe(405);
    expect(res.json()).toMatchObject({ result: "error", msg: "Method Not Allowed", allowed_methods: ["POST"] });
  });
});
