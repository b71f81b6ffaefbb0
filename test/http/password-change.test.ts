import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { OWNER_PASSWORD } from "../support/realm.js";
import { estimateGuesses, isPasswordStrong } from "../../src/lib/password-strength.js";
import { hashPassword, verifyPassword } from "../../src/lib/secrets.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const stored = (id: number) => s.db.selectFrom("users").select(["password_hash", "api_key", "full_name"]).where("id", "=", id).executeTakeFirstOrThrow();
const login = (email: string, password: string, host?: string) => s.api.post(null, "/fetch_api_key", { username: email, password }, host ? { host } : {});

describe("PATCH /settings: password change", () => {
  it("changes the password with the right old one; the API key stays; the new password logs in", async () => {
    const { owner } = s.realm;
    const before = await stored(owner.id);
    const body = expectSuccess(await s.api.patch(owner, "/settings", { old_password: OWNER_PASSWORD, new_password: "a brand new passphrase" }));
    expect(body).toEqual({ result: "success", msg: "" });
    const after = await stored(owner.id);
    expect(after.api_key).toBe(before.api_key);
    expect(after.password_hash).not.toBe(before.password_hash);
    expect(after.password_hash!.startsWith("scrypt$")).toBe(true);
    expect(await verifyPassword("a brand new passphrase", after.password_hash)).toBe(true);
    expectError(await login(owner.delivery_email, OWNER_PASSWORD), "Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
    expect(expectSuccess(await login(owner.delivery_email, "a brand new passphrase")).api_key).toBe(before.api_key);
    // And back, for the other tests.
    expectSuccess(await s.api.patch(owner, "/settings", { old_password: "a brand new passphrase", new_password: OWNER_PASSWORD }));
    expect(await verifyPassword(OWNER_PASSWORD, (await stored(owner.id)).password_hash)).toBe(true);
  });

  it("refuses a wrong or missing old password, changing nothing (not even the other settings sent along)", async () => {
    const { owner } = s.realm;
    const before = await stored(owner.id);
    expectError(await s.api.patch(owner, "/settings", { old_password: "not the password", new_password: "a brand new passphrase", full_name: "Renamed" }), "Wrong password!");
    expectError(await s.api.patch(owner, "/settings", { new_password: "a brand new passphrase" }), "Wrong password!");
    expect(await stored(owner.id)).toEqual(before);
  });

  it("refuses any old password for a user who has none", async () => {
    const { member } = s.realm;
    const before = await stored(member.id);
    expectError(await s.api.patch(member, "/settings", { old_password: "", new_password: "a brand new passphrase" }), "Wrong password!");
    expect(await stored(member.id)).toEqual(before);
  });

  it("applies the password policy after the old password: length and guessability", async () => {
    const { owner } = s.realm;
    const before = await stored(owner.id);
    for (const weak of ["", "abc12", "password", "password123", "qwertyuiop", "aaaaaaaaaa", "abcdefgh", "987654", "x".repeat(50) + "y".repeat(51)]) {
      expectError(await s.api.patch(owner, "/settings", { old_password: OWNER_PASSWORD, new_password: weak }), "New password is too weak!");
    }
    // A wrong old password is reported first even when the new one is weak.
    expectError(await s.api.patch(owner, "/settings", { old_password: "wrong", new_password: "abc" }), "Wrong password!");
    expect(await stored(owner.id)).toEqual(before);
  });

  it("ignores old_password without new_password", async () => {
    const { owner } = s.realm;
    const before = await stored(owner.id);
    expectSuccess(await s.api.patch(owner, "/settings", { old_password: "whatever" }));
    expect(await stored(owner.id)).toEqual(before);
  });

  it("refuses bots", async () => {
    const bot = await s.db.selectFrom("users").selectAll().where("id", "=", s.realm.realm.notification_bot_id!).executeTakeFirstOrThrow();
    expectError(await s.api.patch(bot, "/settings", { old_password: "x", new_password: "a brand new passphrase" }), "This endpoint does not accept bot requests.");
  });
});

describe("password policy", () => {
  it("follows upstream's defaults: 6 to 100 characters and 10,000 guesses", () => {
    expect(isPasswordStrong("s3cret-pw")).toBe(true);
    expect(isPasswordStrong("correct horse battery staple")).toBe(true);
    expect(isPasswordStrong("x9$Lq")).toBe(false);
    expect(isPasswordStrong("Zq8!wR")).toBe(true);
    expect(isPasswordStrong("a".repeat(101))).toBe(false);
    expect(estimateGuesses("letmein")).toBeLessThan(10_000);
    expect(estimateGuesses("letmein!!")).toBeLessThan(10_000);
    expect(estimateGuesses("letmein2024!")).toBeGreaterThan(10_000);
  });
});

describe("wrong old passwords are rate limited with the login attempts", () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ loginAttemptsPer30Minutes: 2 });
  });
  afterAll(() => limited.close());

  it("locks out after the allowed attempts, even the right password, and shares the count with logins", async () => {
    const { owner } = limited.realm;
    const patch = (old: string) => limited.api.patch(owner, "/settings", { old_password: old, new_password: "a brand new passphrase" });
    expectError(await patch("wrong-1"), "Wrong password!");
    expectError(
      await limited.api.post(null, "/fetch_api_key", { username: owner.delivery_email, password: "wrong-2" }),
      "Your username or password is incorrect",
      { status: 401, code: "AUTHENTICATION_FAILED" },
    );
    const res = await patch(OWNER_PASSWORD);
    expect(res.statusCode).toBe(400);
    expect(res.json().msg).toMatch(/^You're making too many attempts! Try again in \d+ seconds\.$/);
    const hash = await limited.db.selectFrom("users").select("password_hash").where("id", "=", owner.id).executeTakeFirstOrThrow();
    expect(await verifyPassword(OWNER_PASSWORD, hash.password_hash)).toBe(true);
  });

  it("a right old password clears the count", async () => {
    const { admin } = limited.realm;
    await limited.db.updateTable("users").set({ password_hash: await hashPassword("admin passphrase one") }).where("id", "=", admin.id).execute();
    const patch = (old: string, next: string) => limited.api.patch(admin, "/settings", { old_password: old, new_password: next });
    expectError(await patch("wrong-1", "admin passphrase two"), "Wrong password!");
    expectSuccess(await patch("admin passphrase one", "admin passphrase two"));
    // Without the clearing, this third attempt would be over the limit.
    expectError(await patch("wrong-2", "admin passphrase three"), "Wrong password!");
    expectError(await patch("wrong-3", "admin passphrase three"), "Wrong password!");
    expect((await patch("admin passphrase two", "admin passphrase three")).json().msg).toMatch(/^You're making too many attempts!/);
  });
});
