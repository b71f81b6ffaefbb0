/**
 * Lifting a login lock-out from outside the server process: `parley clear-lockout` records a
 * clear in the database (recordLockoutClear); the login view consumes it when it finds the
 * user locked out. The CLI side is tested in test/cli/cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordLockoutClear } from "../../src/db/queries/login-lockouts.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { OWNER_PASSWORD } from "../support/realm.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ loginAttemptsPer30Minutes: 2 });
});
afterAll(() => s.close());

const nowSeconds = () => Math.floor(s.ctx.now() / 1000);

async function lockOut(username: string): Promise<void> {
  for (let i = 0; i < 2; i++) {
    expectError(await s.api.post(null, "/fetch_api_key", { username, password: "wrong-one" }), "Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
  }
}

async function clears(): Promise<number> {
  return (await s.db.selectFrom("login_lockout_clears").select("id").execute()).length;
}

describe("clearing a login lock-out", () => {
  it("a clear recorded after the lock-out lets the right password in, once", async () => {
    const username = s.realm.owner.delivery_email;
    await lockOut(username);
    expectError(await s.api.post(null, "/fetch_api_key", { username, password: OWNER_PASSWORD }), "API usage exceeded rate limit", { status: 429, code: "RATE_LIMIT_HIT" });
    await recordLockoutClear(s.db, s.realm.realm.id, username.toUpperCase(), nowSeconds());
    const body = expectSuccess(await s.api.post(null, "/fetch_api_key", { username, password: OWNER_PASSWORD }));
    expect(body.user_id).toBe(s.realm.owner.id);
    expect(await clears()).toBe(0);
    // Consumed: the next lock-out needs another clear.
    await lockOut(username);
    expect((await s.api.post(null, "/fetch_api_key", { username, password: OWNER_PASSWORD })).statusCode).toBe(429);
  });

  it("a clear made before the lock-out began does not lift it", async () => {
    const username = s.realm.admin.delivery_email;
    await recordLockoutClear(s.db, s.realm.realm.id, username, nowSeconds() - 3600);
    await lockOut(username);
    expectError(await s.api.post(null, "/fetch_api_key", { username, password: "whatever1" }), "API usage exceeded rate limit", { status: 429, code: "RATE_LIMIT_HIT" });
    expect(await clears()).toBe(0);
  });

  it("a clear for another organization's user of the same email does nothing here", async () => {
    const username = s.realm.member.delivery_email;
    await lockOut(username);
    await recordLockoutClear(s.db, s.other.realm.id, username, nowSeconds());
    expect((await s.api.post(null, "/fetch_api_key", { username, password: "whatever1" })).statusCode).toBe(429);
    expect(await clears()).toBe(1);
  });
});
