/**
 * Hostile session input: malformed, huge, repeated and forged cookies and CSRF tokens, on
 * /json, /api/v1, the login page and logout. Each gets a clean refusal (never a 500, never
 * another user's identity), and nothing in the database changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionTokenHash } from "../../src/actions/sessions.js";
import { maskCsrfSecret } from "../../src/lib/csrf.js";
import { expectError, expectSuccess, injectChecked } from "../support/client.js";
import { snapshotDb } from "../support/fuzz.js";
import { OWNER_PASSWORD } from "../support/realm.js";
import { formToken, TestBrowser } from "../support/browser.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
let victim: TestBrowser;
beforeAll(async () => {
  s = await startTestServer();
  victim = new TestBrowser(s.app, s.realm.host);
  expect((await victim.login(s.realm.owner.delivery_email, OWNER_PASSWORD)).statusCode).toBe(303);
});
afterAll(() => s?.close());

const NOT_LOGGED_IN = "Not logged in: API authentication or user session required";
const token = () => victim.cookies.get("sessionid")!;

const hostileCookies = (): string[] => [
  "sessionid",
  "sessionid=",
  "=",
  ";;;",
  "sessionid=%00%00",
  "sessionid=\u00e9\u00e9",
  `sessionid=${"A".repeat(31)}`,
  `sessionid=${"A".repeat(33)}`,
  `sessionid=${token().toLowerCase() === token() ? token().toUpperCase() : token().toLowerCase()}`,
  `sessionid=${sessionTokenHash(token())}`,
  `sessionid="${"B".repeat(32)}"`,
  `sessionid=${"x".repeat(100_000)}`,
  `${"a=b; ".repeat(3000)}sessionid=${token()}`,
  `sessionid=${token().slice(0, 31)}!`,
];

describe("hostile session cookies", () => {
  it("read as no session on /json and /api/v1: 401, never a 500, never the victim", async () => {
    for (const cookie of hostileCookies()) {
      for (const prefix of ["/json", "/api/v1"]) {
        const res = await injectChecked(s.app, { method: "GET", url: `${prefix}/users/me`, headers: { host: s.realm.host, cookie } });
        expectError(res, NOT_LOGGED_IN, { status: 401, code: "UNAUTHORIZED" });
      }
    }
  });

  it("read as anonymous on the login page and logout (no 500, no redirect into the app)", async () => {
    for (const cookie of hostileCookies()) {
      const page = await s.app.inject({ method: "GET", url: "/login/", headers: { host: s.realm.host, cookie } });
      expect(page.statusCode, cookie.slice(0, 50)).toBe(200);
      const out = await s.app.inject({ method: "POST", url: "/accounts/logout/", headers: { host: s.realm.host, cookie, "content-type": "application/x-www-form-urlencoded" }, payload: "" });
      expect(out.statusCode).toBe(403);
    }
    // The victim's session survived all of it.
    expectSuccess(await victim.api("GET", "/users/me"));
  });

  it("a repeated cookie name: the first one counts (as browsers send the most specific first)", async () => {
    const res = await injectChecked(s.app, { method: "GET", url: "/json/users/me", headers: { host: s.realm.host, cookie: `sessionid=${"C".repeat(32)}; sessionid=${token()}` } });
    expectError(res, NOT_LOGGED_IN, { status: 401, code: "UNAUTHORIZED" });
  });
});

describe("forged CSRF tokens", () => {
  it("are refused with CSRF_FAILED and change nothing", async () => {
    // Another session's token (the attacker's own) does not fit the victim's session.
    const attackerToken = await attackerCsrfToken();
    const before = await snapshotDb(s.db);
    const otherSecretToken = maskCsrfSecret("D".repeat(32));
    const forged = [
      "",
      "x",
      "A".repeat(63),
      "A".repeat(65),
      "\u00e9".repeat(64),
      "!".repeat(32),
      otherSecretToken,
      otherSecretToken.slice(0, 32),
      attackerToken,
      victim.cookies.get("csrftoken")!.slice(0, 32),
    ];
    for (const csrf of forged) {
      const res = await victim.api("POST", "/users/me/status", { status_text: "forged" }, { csrf });
      expect(res.statusCode, csrf).toBe(403);
      expect(res.json().code).toBe("CSRF_FAILED");
    }
    expect(await snapshotDb(s.db)).toEqual(before);
  });

  it("a login form token does not fit another browser's cookie", async () => {
    const attacker = new TestBrowser(s.app, s.realm.host);
    const page = await attacker.request("GET", "/login/");
    const fresh = new TestBrowser(s.app, s.realm.host);
    await fresh.request("GET", "/login/");
    const res = await fresh.request("POST", "/accounts/login/", { form: { csrfmiddlewaretoken: formToken(page.body), username: s.realm.owner.delivery_email, password: OWNER_PASSWORD } });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain("CSRF token from POST incorrect.");
    expect(fresh.cookies.has("sessionid")).toBe(false);
  });
});

async function attackerCsrfToken(): Promise<string> {
  const attacker = new TestBrowser(s.app, s.realm.host);
  expect((await attacker.login(s.realm.owner.delivery_email, OWNER_PASSWORD)).statusCode).toBe(303);
  return attacker.cookies.get("csrftoken")!;
}
