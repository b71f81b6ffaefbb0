import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { OWNER_PASSWORD } from "../support/realm.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ rateLimitPerMinute: 3, loginAttemptsPer30Minutes: 2 });
});
afterAll(() => s.close());

describe("per-user API rate limit", () => {
  it("answers 429 RATE_LIMIT_HIT past the limit, per user, with upstream's headers", async () => {
    const { member, other } = s.realm;
    for (let i = 0; i < 3; i++) {
      const res = await s.api.get(member, "/users/me");
      expectSuccess(res);
      expect(res.headers["x-ratelimit-limit"]).toBe("3");
      expect(res.headers["x-ratelimit-remaining"]).toBe(String(2 - i));
    }
    const limited = await s.api.get(member, "/users/me");
    const body = expectError(limited, "API usage exceeded rate limit", { status: 429, code: "RATE_LIMIT_HIT" });
    expect(body["retry-after"]).toBeGreaterThan(0);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // Another user is counted separately.
    expectSuccess(await s.api.get(other, "/users/me"));
  });

  it("lets the window pass", async () => {
    const { moderator } = s.realm;
    const realNow = s.ctx.now;
    try {
      for (let i = 0; i < 3; i++) expectSuccess(await s.api.get(moderator, "/users/me"));
      expect((await s.api.get(moderator, "/users/me")).statusCode).toBe(429);
      const later = realNow() + 61_000;
      s.ctx.now = () => later;
      expectSuccess(await s.api.get(moderator, "/users/me"));
    } finally {
      s.ctx.now = realNow;
    }
  });
});

describe("password attempts", () => {
  it("counts failed attempts per username; past the limit even the right password waits", async () => {
    const username = s.realm.owner.delivery_email;
    const wrong = () => s.api.post(null, "/fetch_api_key", { username, password: "wrong-one" });
    // Successful logins do not count.
    for (let i = 0; i < 3; i++) expectSuccess(await s.api.post(null, "/fetch_api_key", { username, password: OWNER_PASSWORD }));
    for (let i = 0; i < 2; i++) {
      expectError(await wrong(), "Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
    }
    const limited = await s.api.post(null, "/fetch_api_key", { username, password: OWNER_PASSWORD });
    expectError(limited, "API usage exceeded rate limit", { status: 429, code: "RATE_LIMIT_HIT" });
    // Other usernames are unaffected.
    expectError(
      await s.api.post(null, "/fetch_api_key", { username: s.realm.admin.delivery_email, password: "nope-nope" }),
      "Your username or password is incorrect",
      { status: 401, code: "AUTHENTICATION_FAILED" },
    );
  });
});
