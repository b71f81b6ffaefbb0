/**
 * The browser's sign-in: GET /login/, POST /accounts/login/ and /accounts/logout/, the
 * session cookies, and session authentication with CSRF checks on /json and /api/v1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/lib/secrets.js";
import { updateUserRow } from "../../src/db/queries/users.js";
import { sessionTokenHash } from "../../src/actions/sessions.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { OWNER_PASSWORD } from "../support/realm.js";
import { formToken, setCookies, TestBrowser } from "../support/browser.js";
import { postFiles } from "../support/multipart.js";
import { ManualClock } from "../../src/jobs/clock.js";
import { SessionSweepJob } from "../../src/jobs/session-sweep.js";

const INVALID_LOGIN = "Please enter a correct email and password. Note that both fields may be case-sensitive.";
const MEMBER_PASSWORD = "a member's long passphrase";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await updateUserRow(s.db, s.realm.realm.id, s.realm.member.id, { password_hash: await hashPassword(MEMBER_PASSWORD) });
});
afterAll(() => s.close());

const browser = () => new TestBrowser(s.app, s.realm.host);
const sessionRows = async (userId: number) => s.db.selectFrom("sessions").selectAll().where("user_id", "=", userId).execute();

async function signedIn(email = s.realm.member.delivery_email, password = MEMBER_PASSWORD): Promise<TestBrowser> {
  const b = browser();
  const res = await b.login(email, password);
  expect(res.statusCode).toBe(303);
  return b;
}

describe("GET /login/", () => {
  it("renders the form with labels, the realm's name and a CSRF token matching the cookie it sets", async () => {
    const b = browser();
    const res = await b.request("GET", "/login/");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.body).toContain("Test Organization");
    expect(res.body).toContain('<form method="post" action="/accounts/login/">');
    expect(res.body).toMatch(/<label for="id_username">Email<\/label>/);
    expect(res.body).toMatch(/<label for="id_password">Password<\/label>/);
    expect(res.body).not.toContain("<script");
    const token = formToken(res.body);
    expect(token).toMatch(/^[A-Za-z0-9]{64}$/);
    const cookie = setCookies(res).find((c) => c.startsWith("csrftoken="))!;
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("HttpOnly");
    // A second visit keeps the cookie's secret (no new cookie) and masks it afresh.
    const again = await b.request("GET", "/login/");
    expect(setCookies(again)).toEqual([]);
    expect(formToken(again.body)).not.toBe(token);
  });

  it("keeps a same-site next and drops any other", async () => {
    const b = browser();
    const kept = await b.request("GET", "/login/?next=%2F%23narrow%2Fchannel%2F1");
    expect(kept.body).toContain('<input type="hidden" name="next" value="/#narrow/channel/1">');
    for (const next of ["//evil.example/", "https://evil.example/", "/\\evil.example", "/a b", "javascript:alert(1)"]) {
      const res = await b.request("GET", `/login/?next=${encodeURIComponent(next)}`);
      expect(res.body).not.toContain('name="next"');
    }
  });

  it("redirects a signed-in browser to the app", async () => {
    const b = await signedIn();
    const res = await b.request("GET", "/login/");
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe("/");
  });
});

describe("POST /accounts/login/", () => {
  it("starts a session: cookies with their attributes, a hashed row, 303 to /", async () => {
    const b = browser();
    const res = await b.login(s.realm.member.delivery_email.toUpperCase(), MEMBER_PASSWORD);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe("/");
    const cookies = setCookies(res);
    const session = cookies.find((c) => c.startsWith("sessionid="))!;
    expect(session).toMatch(/^sessionid=[A-Za-z0-9]{32}; Max-Age=1209600; Path=\/; SameSite=Lax; HttpOnly$/);
    const csrf = cookies.find((c) => c.startsWith("csrftoken="))!;
    expect(csrf).toMatch(/^csrftoken=[A-Za-z0-9]{64}; Max-Age=1209600; Path=\/; SameSite=Lax$/);
    // Only the token's hash is stored; the API key is in no cookie.
    const token = b.cookies.get("sessionid")!;
    const rows = await s.db.selectFrom("sessions").selectAll().where("token_hash", "=", sessionTokenHash(token)).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ user_id: s.realm.member.id, realm_id: s.realm.realm.id });
    expect(rows[0].expires_at - rows[0].created_at).toBe(1209600);
    expect(JSON.stringify(await s.db.selectFrom("sessions").selectAll().execute())).not.toContain(token);
    expect(cookies.join("\n")).not.toContain(s.realm.member.api_key);
  });

  it("sends the browser to a same-site next, and to / for any other", async () => {
    const b = browser();
    expect((await b.login(s.realm.member.delivery_email, MEMBER_PASSWORD, { next: "/#narrow/dm/1" })).headers.location).toBe("/#narrow/dm/1");
    for (const next of ["//evil.example", "https://evil.example/x", "/\\evil.example"]) {
      const res = await browser().login(s.realm.member.delivery_email, MEMBER_PASSWORD, { next });
      expect(res.headers.location).toBe("/");
    }
  });

  it("re-renders the form on a wrong password: status 200, upstream's message in an alert, email kept, password not echoed", async () => {
    const b = browser();
    const res = await b.login(s.realm.member.delivery_email, "wrong password <b>");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<p role="alert">${INVALID_LOGIN}</p>`);
    expect(res.body).toContain(`value="${s.realm.member.delivery_email}"`);
    expect(res.body).not.toContain("wrong password");
    expect(b.cookies.has("sessionid")).toBe(false);
    // An unknown user reads the same.
    expect((await b.login("nobody@example.com", "x")).body).toContain(INVALID_LOGIN);
    // Another organization's user cannot sign in here.
    expect((await b.login(s.other.owner.delivery_email, OWNER_PASSWORD)).body).toContain(INVALID_LOGIN);
    expect((await b.login("not an email", "x")).body).toContain('<p role="alert">Enter a valid email address.</p>');
  });

  it("refuses a form without the CSRF cookie or with a wrong token (403, no session)", async () => {
    const b = browser();
    const page = await b.request("GET", "/login/");
    const token = formToken(page.body);
    const form = { username: s.realm.member.delivery_email, password: MEMBER_PASSWORD };
    const noCookie = await b.request("POST", "/accounts/login/", { form: { ...form, csrfmiddlewaretoken: token }, headers: { cookie: "" } });
    expect(noCookie.statusCode).toBe(403);
    expect(noCookie.body).toContain("CSRF cookie not set.");
    const missing = await b.request("POST", "/accounts/login/", { form });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain("CSRF token missing.");
    const wrong = await b.request("POST", "/accounts/login/", { form: { ...form, csrfmiddlewaretoken: "a".repeat(64) } });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).toContain("CSRF token from POST incorrect.");
    const short = await b.request("POST", "/accounts/login/", { form: { ...form, csrfmiddlewaretoken: "abc" } });
    expect(short.body).toContain("CSRF token from POST has incorrect length.");
    const crossSite = await b.request("POST", "/accounts/login/", { form: { ...form, csrfmiddlewaretoken: token }, headers: { origin: "http://evil.example" } });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.body).toContain("Origin checking failed - http://evil.example does not match any trusted origins.");
    expect(b.cookies.has("sessionid")).toBe(false);
  });

  it("tells a deactivated user so, with upstream's message", async () => {
    const u = await s.api.post(s.realm.owner, "/users", { email: "leaving@example.com", password: "leaving user's password", full_name: "Leaving User" });
    const userId = expectSuccess(u).user_id as number;
    expectSuccess(await s.api.delete(s.realm.owner, `/users/${userId}`));
    const res = await browser().login("leaving@example.com", "leaving user's password");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(
      '<p role="alert">Your account leaving@example.com has been deactivated. Please contact your organization administrator to reactivate it.</p>',
    );
  });

  it("shares fetch_api_key's attempt limit, and says so in upstream's words", async () => {
    const limited = await startTestServer({ loginAttemptsPer30Minutes: 2 });
    try {
      const b = new TestBrowser(limited.app, limited.realm.host);
      const email = limited.realm.owner.delivery_email;
      expect((await b.login(email, "wrong one")).body).toContain(INVALID_LOGIN);
      expectError(await limited.api.post(null, "/fetch_api_key", { username: email, password: "wrong two" }), "Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
      // Locked: even the right password waits.
      const res = await b.login(email, OWNER_PASSWORD);
      expect(res.statusCode).toBe(200);
      expect(res.body).toMatch(
        /<p role="alert">You're making too many attempts to sign in\. Try again in \d+ seconds or contact your organization administrator for help\.<\/p>/,
      );
      expect(b.cookies.has("sessionid")).toBe(false);
    } finally {
      await limited.close();
    }
  });

  it("marks the cookies Secure over HTTPS only behind a trusted proxy", async () => {
    const proxied = await startTestServer({ trustProxy: true });
    try {
      const b = new TestBrowser(proxied.app, proxied.realm.host);
      const page = await b.request("GET", "/login/", { headers: { "x-forwarded-proto": "https" } });
      expect(setCookies(page)[0]).toMatch(/; Secure$/);
      // Known to be HTTPS: a plain-http Origin of the same host is another origin.
      const downgraded = await b.request("POST", "/accounts/login/", {
        form: { csrfmiddlewaretoken: formToken(page.body), username: proxied.realm.owner.delivery_email, password: OWNER_PASSWORD },
        headers: { "x-forwarded-proto": "https", origin: `http://${proxied.realm.host}` },
      });
      expect(downgraded.statusCode).toBe(403);
      const res = await b.request("POST", "/accounts/login/", {
        form: { csrfmiddlewaretoken: formToken(page.body), username: proxied.realm.owner.delivery_email, password: OWNER_PASSWORD },
        headers: { "x-forwarded-proto": "https", origin: `https://${proxied.realm.host}` },
      });
      expect(res.statusCode).toBe(303);
      for (const c of setCookies(res)) expect(c).toMatch(/; Secure$/);
    } finally {
      await proxied.close();
    }
    // Not trusted (the default): the header is ignored.
    const page = await browser().request("GET", "/login/", { headers: { "x-forwarded-proto": "https" } });
    expect(setCookies(page)[0]).not.toContain("Secure");
  });
});

describe("session authentication", () => {
  it("authenticates GET on /json and /api/v1 as the session's user", async () => {
    const b = await signedIn();
    for (const prefix of ["/json", "/api/v1"]) {
      const res = await b.api("GET", "/users/me", {}, { prefix });
      expect(expectSuccess(res).user_id).toBe(s.realm.member.id);
    }
  });

  it("checks CSRF on unsafe methods: missing, wrong and right, on both prefixes", async () => {
    const b = await signedIn();
    for (const prefix of ["/json", "/api/v1"]) {
      const missing = await b.api("POST", "/users/me/status", { status_text: "x" }, { prefix, csrf: null });
      expect(missing.json()).toEqual({ result: "error", msg: "CSRF error: CSRF token missing.", code: "CSRF_FAILED", reason: "CSRF token missing." });
      expect(missing.statusCode).toBe(403);
      const wrong = await b.api("POST", "/users/me/status", { status_text: "x" }, { prefix, csrf: "b".repeat(64) });
      expectError(wrong, "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header incorrect.", { status: 403, code: "CSRF_FAILED" });
      const malformed = await b.api("PATCH", "/settings", { full_name: "x" }, { prefix, csrf: "!".repeat(64) });
      expectError(malformed, "CSRF error: CSRF token from the 'X-Csrftoken' HTTP header has invalid characters.", { status: 403, code: "CSRF_FAILED" });
      const right = await b.api("POST", "/users/me/status", { status_text: `ok ${prefix}` }, { prefix });
      expectSuccess(right);
    }
    // The refused requests changed nothing.
    const row = await s.db.selectFrom("user_status").select("status_text").where("user_id", "=", s.realm.member.id).executeTakeFirst();
    expect(row?.status_text).toBe("ok /api/v1");
    const me = await s.db.selectFrom("users").select("full_name").where("id", "=", s.realm.member.id).executeTakeFirstOrThrow();
    expect(me.full_name).toBe("Mary Member");
  });

  it("refuses a cross-site Origin even with the right token", async () => {
    const b = await signedIn();
    const res = await b.request("POST", "/json/users/me/status", {
      form: { status_text: "x" },
      headers: { "x-csrftoken": b.cookies.get("csrftoken")!, origin: "http://evil.example" },
    });
    expectError(res, "CSRF error: Origin checking failed - http://evil.example does not match any trusted origins.", { status: 403, code: "CSRF_FAILED" });
  });

  it("accepts this host's own Origin, over http or (behind an untrusted proxy) https, and no other", async () => {
    const b = await signedIn();
    const post = (origin: string, proto?: string) =>
      b.request("POST", "/json/users/me/status", {
        form: { status_text: "origin" },
        headers: { "x-csrftoken": b.cookies.get("csrftoken")!, origin, ...(proto ? { "x-forwarded-proto": proto } : {}) },
      });
    expectSuccess(await post(`http://${s.realm.host}`));
    expectSuccess(await post(`https://${s.realm.host}`));
    for (const origin of [`http://${s.other.host}`, `http://${s.realm.host}.evil.example`, "null", `http://evil.example/${s.realm.host}`]) {
      expectError(await post(origin), `CSRF error: Origin checking failed - ${origin} does not match any trusted origins.`, { status: 403, code: "CSRF_FAILED" });
    }
  });

  it("leaves Basic authentication alone: no CSRF needed, Basic wins over a cookie", async () => {
    const b = await signedIn();
    const res = await s.api.post(s.realm.owner, "/users/me/status", { status_text: "basic" }, { headers: { cookie: b.cookieHeader() } });
    expectSuccess(res);
    const me = await s.api.get(s.realm.owner, "/users/me", {}, { headers: { cookie: b.cookieHeader() } });
    expect(expectSuccess(me).user_id).toBe(s.realm.owner.id);
  });

  it("answers 401 JSON without a session, and for unknown or malformed cookies", async () => {
    for (const cookie of [undefined, "sessionid=" + "A".repeat(32), "sessionid=short", "sessionid="]) {
      const res = await browser().request("GET", "/json/users/me", { headers: cookie ? { cookie } : {} });
      expectError(res, "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
    }
  });

  it("refuses the session of another organization's host", async () => {
    const b = await signedIn();
    const res = await b.request("GET", "/json/users/me", { headers: { host: s.other.host, cookie: b.cookieHeader() } });
    expectError(res, "Account is not associated with this subdomain", { status: 401, code: "UNAUTHORIZED" });
  });

  it("refuses a deactivated user's session on the very next request", async () => {
    const u = expectSuccess(await s.api.post(s.realm.owner, "/users", { email: "soon-gone@example.com", password: "soon gone's password", full_name: "Soon Gone" }));
    const b = browser();
    expect((await b.login("soon-gone@example.com", "soon gone's password")).statusCode).toBe(303);
    expectSuccess(await b.api("GET", "/users/me"));
    expectSuccess(await s.api.delete(s.realm.owner, `/users/${u.user_id}`));
    const res = await b.api("GET", "/users/me");
    expect(res.statusCode).toBe(401);
  });

  it("refuses an expired session", async () => {
    const b = await signedIn();
    expectSuccess(await b.api("GET", "/users/me"));
    const hash = sessionTokenHash(b.cookies.get("sessionid")!);
    await s.db.updateTable("sessions").set({ expires_at: Math.floor(Date.now() / 1000) - 1 }).where("token_hash", "=", hash).execute();
    // The update does not flush the cache: expiry is checked on every use.
    s.ctx.caches.sessions.flushAll();
    expectError(await b.api("GET", "/users/me"), "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
  });
});

describe("session authentication costs", () => {
  it("no more statements than Basic credentials once cached, and a fixed number cold", async () => {
    const b = await signedIn();
    const bySession = () => s.countQueries(async () => expectSuccess(await b.api("GET", "/users/me")), { warm: true });
    const byBasic = () => s.countQueries(async () => expectSuccess(await s.api.get(s.realm.member, "/users/me")), { warm: true });
    await bySession();
    await byBasic();
    expect(await bySession()).toBe(await byBasic());
    // Cold: the session, its user and its realm, one statement each, in place of the API-key lookup's two.
    const cold = await s.countQueries(async () => expectSuccess(await b.api("GET", "/users/me")));
    const coldBasic = await s.countQueries(async () => expectSuccess(await s.api.get(s.realm.member, "/users/me")));
    expect(cold).toBe(coldBasic + 1);
  });

  it("counts against the same per-user rate limit as Basic credentials", async () => {
    const limited = await startTestServer({ rateLimitPerMinute: 3 });
    try {
      const b = new TestBrowser(limited.app, limited.realm.host);
      expect((await b.login(limited.realm.owner.delivery_email, OWNER_PASSWORD)).statusCode).toBe(303);
      expectSuccess(await b.api("GET", "/users/me"));
      expectSuccess(await limited.api.get(limited.realm.owner, "/users/me"));
      const third = await b.api("GET", "/users/me");
      expect(third.headers["x-ratelimit-remaining"]).toBe("0");
      expectError(await b.api("GET", "/users/me"), "API usage exceeded rate limit", { status: 429, code: "RATE_LIMIT_HIT" });
    } finally {
      await limited.close();
    }
  });
});

describe("POST /accounts/logout/", () => {
  it("needs the CSRF token, then ends the session and clears both cookies", async () => {
    const b = await signedIn();
    const refused = await b.request("POST", "/accounts/logout/", { form: {} });
    expect(refused.statusCode).toBe(403);
    expectSuccess(await b.api("GET", "/users/me"));
    const token = b.cookies.get("sessionid")!;
    const res = await b.request("POST", "/accounts/logout/", { headers: { "x-csrftoken": b.cookies.get("csrftoken")! } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe("/login/");
    const cookies = setCookies(res);
    expect(cookies).toContain("sessionid=; Max-Age=0; Path=/; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly");
    expect(cookies).toContain("csrftoken=; Max-Age=0; Path=/; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT");
    expect(await s.db.selectFrom("sessions").select("id").where("token_hash", "=", sessionTokenHash(token)).execute()).toEqual([]);
    // The old cookie no longer works, even replayed.
    const replay = await b.request("GET", "/json/users/me", { headers: { cookie: `sessionid=${token}` } });
    expect(replay.statusCode).toBe(401);
  });

  it("accepts the form's hidden token", async () => {
    const b = await signedIn();
    const before = (await sessionRows(s.realm.member.id)).length;
    const res = await b.request("POST", "/accounts/logout/", { form: { csrfmiddlewaretoken: b.cookies.get("csrftoken")! } });
    expect(res.statusCode).toBe(303);
    expect((await sessionRows(s.realm.member.id)).length).toBe(before - 1);
  });
});

describe("sessions end", () => {
  async function newUserWithSessions(email: string, password: string, count: number): Promise<{ userId: number; browsers: TestBrowser[] }> {
    const userId = expectSuccess(await s.api.post(s.realm.owner, "/users", { email, password, full_name: "Session Holder" })).user_id as number;
    const browsers: TestBrowser[] = [];
    for (let i = 0; i < count; i++) {
      const b = browser();
      expect((await b.login(email, password)).statusCode).toBe(303);
      browsers.push(b);
    }
    return { userId, browsers };
  }

  it("on a password change: every other session of the user, not the one that changed it", async () => {
    const { userId, browsers } = await newUserWithSessions("changer@example.com", "the changer's first password", 3);
    const [current, ...others] = browsers;
    const other = await signedIn();
    expectSuccess(await current.api("PATCH", "/settings", { old_password: "the changer's first password", new_password: "the changer's second password" }));
    expectSuccess(await current.api("GET", "/users/me"));
    for (const b of others) expect((await b.api("GET", "/users/me")).statusCode).toBe(401);
    expect(await sessionRows(userId)).toHaveLength(1);
    // Another user's session is untouched.
    expectSuccess(await other.api("GET", "/users/me"));
    // A change over Basic credentials ends all of them.
    const user = await s.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    expectSuccess(await s.api.patch(user, "/settings", { old_password: "the changer's second password", new_password: "the changer's third password" }));
    expect(await sessionRows(userId)).toHaveLength(0);
    expect((await current.api("GET", "/users/me")).statusCode).toBe(401);
  });

  it("on a refused password change: none", async () => {
    const { userId, browsers } = await newUserWithSessions("keeper@example.com", "the keeper's password", 2);
    expectError(await browsers[0].api("PATCH", "/settings", { old_password: "not it", new_password: "whatever new password" }), "Wrong password!");
    expect(await sessionRows(userId)).toHaveLength(2);
  });

  it("on deactivation: every session row goes", async () => {
    const { userId } = await newUserWithSessions("deactivated@example.com", "deactivated one's password", 2);
    expectSuccess(await s.api.delete(s.realm.owner, `/users/${userId}`));
    expect(await sessionRows(userId)).toHaveLength(0);
  });

  it("on an operator's password reset (parley reset-password)", async () => {
    const { userId, browsers } = await newUserWithSessions("reset@example.com", "reset one's password", 2);
    const { doResetPassword } = await import("../../src/actions/password-reset.js");
    const user = await s.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    await doResetPassword(s.ctx, s.realm.realm, user);
    expect(await sessionRows(userId)).toHaveLength(0);
    for (const b of browsers) expect((await b.api("GET", "/users/me")).statusCode).toBe(401);
  });

  it("when the organization is deactivated: refused on the next request", async () => {
    const other = await startTestServer();
    try {
      const b = new TestBrowser(other.app, other.realm.host);
      expect((await b.login(other.realm.owner.delivery_email, OWNER_PASSWORD)).statusCode).toBe(303);
      expectSuccess(await b.api("GET", "/users/me"));
      await other.db.updateTable("realms").set({ deactivated: 1 }).where("id", "=", other.realm.realm.id).execute();
      expectError(await b.api("GET", "/users/me"), "This organization has been deactivated", { status: 401, code: "UNAUTHORIZED" });
    } finally {
      await other.close();
    }
  });
});

describe("/user_uploads with the session cookie", () => {
  it("serves a file to a signed-in browser with the usual access checks", async () => {
    const url = expectSuccess(await postFiles(s, s.realm.member, "/user_uploads", [{ field: "file", filename: "pic.txt", content: Buffer.from("hello"), type: "text/plain" }])).url as string;
    const b = await signedIn();
    const res = await b.request("GET", url);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe("hello");
    // The owner has no access to a file in no message they can read.
    const owner = await signedIn(s.realm.owner.delivery_email, OWNER_PASSWORD);
    expect((await owner.request("GET", url)).statusCode).toBe(403);
    expect((await browser().request("GET", url)).statusCode).toBe(401);
  });
});

describe("the expired-session sweep", () => {
  it("deletes expired sessions at start and every hour after, and nothing else", async () => {
    const a = await signedIn();
    const b = await signedIn();
    const hashOf = (x: TestBrowser) => sessionTokenHash(x.cookies.get("sessionid")!);
    const exists = async (x: TestBrowser) => (await s.db.selectFrom("sessions").select("id").where("token_hash", "=", hashOf(x)).execute()).length === 1;
    const start = Math.floor(Date.now() / 1000);
    const clock = new ManualClock(start * 1000);
    const sweeper = { ...s.ctx, now: () => clock.now() };
    await s.db.updateTable("sessions").set({ expires_at: start - 1 }).where("token_hash", "=", hashOf(a)).execute();
    await s.db.updateTable("sessions").set({ expires_at: start + 1800 }).where("token_hash", "=", hashOf(b)).execute();
    const job = new SessionSweepJob(sweeper, clock);
    try {
      await job.start();
      expect(await exists(a)).toBe(false);
      expect(await exists(b)).toBe(true);
      clock.advance(3600 * 1000);
      await job.idle();
      expect(await exists(b)).toBe(false);
    } finally {
      await job.stop();
    }
  });
});

describe("routes open to spectators (GET /users, /messages)", () => {
  it("answer a live session as its user, and a logged-out session's cookie as a visitor without one", async () => {
    const b = await signedIn();
    const live = expectSuccess(await b.api("GET", "/users"));
    expect((live.members as Array<{ user_id: number }>).some((m) => m.user_id === s.realm.member.id)).toBe(true);
    const stale = b.cookieHeader();
    expect((await b.request("POST", "/accounts/logout/", { headers: { "x-csrftoken": b.cookies.get("csrftoken")! } })).statusCode).toBe(303);
    const dead = await s.app.inject({ method: "GET", url: "/json/users", headers: { host: s.realm.host, cookie: stale } });
    const anonymous = await s.app.inject({ method: "GET", url: "/json/users", headers: { host: s.realm.host } });
    expect([dead.statusCode, dead.json()]).toEqual([anonymous.statusCode, anonymous.json()]);
    // This organization has no web-public channels: a visitor is asked to sign in.
    expect(dead.statusCode).toBe(401);
    expect(dead.json()).toEqual({ result: "error", msg: "Not logged in: API authentication or user session required", code: "UNAUTHORIZED" });
  });
});
