import sodium from "libsodium-wrappers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { register, verifyAction } from "../support/events.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let events: PublishedEvent[] = [];
let relayPublic: string;
let relayPrivate: string;

const b64 = (bytes: Uint8Array) => sodium.to_base64(bytes, sodium.base64_variants.ORIGINAL);

beforeAll(async () => {
  await sodium.ready;
  const kp = sodium.crypto_box_keypair();
  relayPublic = b64(kp.publicKey);
  relayPrivate = b64(kp.privateKey);
  s = await startTestServer({ pushRelayKeys: new Map([[relayPublic, relayPrivate]]) });
  s.ctx.events.subscribe((e) => events.push(e));
});
afterAll(() => s.close());
beforeEach(() => {
  events = [];
});

const now = () => Math.floor(Date.now() / 1000);
function seal(payload: unknown, publicKey = relayPublic): string {
  const text = typeof payload === "string" ? payload : JSON.stringify(payload);
  return b64(sodium.crypto_box_seal(sodium.from_string(text), sodium.from_base64(publicKey, sodium.base64_variants.ORIGINAL)));
}
const clientKey = () => b64(sodium.crypto_box_keypair().publicKey);
const fcm = (token = "fcm-token-1") => ({ token, token_kind: "fcm", timestamp: now() });
const apns = (token = "c0ffee00ab", ios_app_id: string | null = "org.example.app") => ({ token, token_kind: "apns", ios_app_id, timestamp: now() });
const params = (accountId: number, payload: unknown, extra: Record<string, unknown> = {}) => ({
  token_kind: (payload as any)?.token_kind === "apns" ? "apns" : "fcm",
  push_account_id: accountId,
  push_public_key: clientKey(),
  bouncer_public_key: relayPublic,
  encrypted_push_registration: seal(payload),
  ...extra,
});
const rows = () => s.db.selectFrom("push_devices").selectAll().orderBy("id").execute();
const device = (userId: number, accountId: number) =>
  s.db.selectFrom("push_devices").selectAll().where("user_id", "=", userId).where("push_account_id", "=", accountId).executeTakeFirst();
const pushEvents = () => events.filter((e) => e.event.type === "push_device").map((e) => [e.event, e.userIds]);

describe("POST /mobile_push/register", () => {
  it("decrypts the sealed registration, stores the device and reports it active to the user", async () => {
    const u = s.realm.member;
    const req = params(1001, fcm("fcm-abc"));
    expect(expectSuccess(await s.api.post(u, "/mobile_push/register", req))).toEqual({ result: "success", msg: "" });
    expect(await device(u.id, 1001)).toMatchObject({
      realm_id: s.realm.realm.id,
      token_kind: "fcm",
      push_public_key: req.push_public_key,
      bouncer_public_key: relayPublic,
      encrypted_push_registration: req.encrypted_push_registration,
      status: "active",
      error_code: null,
      token: "fcm-abc",
      ios_app_id: null,
    });
    expect(pushEvents()).toEqual([[{ type: "push_device", push_account_id: "1001", status: "active" }, [u.id]]]);

    expectSuccess(await s.api.post(u, "/mobile_push/register", params(1002, apns("ABCDEF0123"))));
    expect(await device(u.id, 1002)).toMatchObject({ token_kind: "apns", token: "ABCDEF0123", ios_app_id: "org.example.app", status: "active" });
    expect((await register(s, u, { event_types: ["push_device"] })).push_devices).toEqual({
      "1001": { status: "active", error_code: null },
      "1002": { status: "active", error_code: null },
    });
    // Devices are per user: another user's state is empty.
    expect((await register(s, s.realm.other, { event_types: ["push_device"] })).push_devices).toEqual({});
  });

  it("reports invalid registrations as failed with upstream's error codes", async () => {
    const u = s.realm.other;
    const cases: Array<[number, Record<string, unknown>, string]> = [
      [2001, { ...params(2001, fcm()), bouncer_public_key: clientKey() }, "INVALID_BOUNCER_PUBLIC_KEY"],
      [2002, { ...params(2002, fcm()), encrypted_push_registration: "not base64!" }, "BAD_REQUEST"],
      [2003, { ...params(2003, fcm()), encrypted_push_registration: seal(fcm(), clientKey()) }, "BAD_REQUEST"],
      [2004, params(2004, "not json"), "BAD_REQUEST"],
      [2005, params(2005, { ...fcm(), token_kind: "gcm" }), "BAD_REQUEST"],
      [2006, params(2006, apns("c0ffee", null)), "BAD_REQUEST"],
      [2007, params(2007, { ...fcm(), ios_app_id: "org.example.app" }), "BAD_REQUEST"],
      [2008, params(2008, apns("not-hex")), "BAD_REQUEST"],
      [2009, params(2009, fcm("")), "BAD_REQUEST"],
      [2010, params(2010, fcm("x".repeat(4097))), "BAD_REQUEST"],
      [2011, params(2011, apns("c0ffee", "bad app id!")), "BAD_REQUEST"],
      [2012, params(2012, { token: "t", token_kind: "fcm" }), "BAD_REQUEST"],
      [2013, params(2013, { ...fcm(), timestamp: now() - 86401 }), "REQUEST_EXPIRED"],
    ];
    for (const [id, req, code] of cases) {
      events = [];
      expectSuccess(await s.api.post(u, "/mobile_push/register", req));
      expect(await device(u.id, id)).toMatchObject({ status: "failed", error_code: code, token: null });
      expect(pushEvents()).toEqual([[{ type: "push_device", push_account_id: String(id), status: "failed", error_code: code }, [u.id]]]);
    }
    // The longest token and a timestamp just inside the window are accepted.
    expectSuccess(await s.api.post(u, "/mobile_push/register", params(2020, { ...fcm("y".repeat(4096)), timestamp: now() - 86000 })));
    expect((await device(u.id, 2020))!.status).toBe("active");
  });

  it("re-registers a failed device in place; an active one stays as it is", async () => {
    const u = s.realm.moderator;
    expectSuccess(await s.api.post(u, "/mobile_push/register", params(3001, { ...fcm(), timestamp: 1 })));
    const failed = (await device(u.id, 3001))!;
    expect(failed.error_code).toBe("REQUEST_EXPIRED");
    events = [];
    expectSuccess(await s.api.post(u, "/mobile_push/register", params(3001, fcm("fresh-token"))));
    const active = (await device(u.id, 3001))!;
    expect(active).toMatchObject({ id: failed.id, status: "active", error_code: null, token: "fresh-token" });
    expect(pushEvents()).toEqual([[{ type: "push_device", push_account_id: "3001", status: "active" }, [u.id]]]);
    events = [];
    expectSuccess(await s.api.post(u, "/mobile_push/register", params(3001, fcm("other-token"))));
    expect(await device(u.id, 3001)).toEqual(active);
    expect(pushEvents()).toEqual([]);
  });

  it("validates parameters in upstream's order and refuses bots; nothing stored", async () => {
    const u = s.realm.member;
    const before = await rows();
    const ok = params(4001, fcm());
    expectError(await s.api.post(s.realm.bot, "/mobile_push/register", ok), "This endpoint does not accept bot requests.");
    expectError(await s.api.post(u, "/mobile_push/register", { ...ok, token_kind: undefined }), "Missing 'token_kind' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(u, "/mobile_push/register", { ...ok, token_kind: "gcm" }), "Invalid token_kind: Value error, Not in the list of possible values");
    expectError(await s.api.post(u, "/mobile_push/register", { ...ok, push_account_id: "abc" }), "push_account_id is not valid JSON");
    expectError(await s.api.post(u, "/mobile_push/register", { ...ok, push_account_id: "1.5" }), "push_account_id is not an integer");
    expectError(await s.api.post(u, "/mobile_push/register", { ...ok, push_public_key: undefined }), "Missing 'push_public_key' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(u, "/mobile_push/register", { ...ok, bouncer_public_key: undefined }), "Missing 'bouncer_public_key' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(u, "/mobile_push/register", { ...ok, encrypted_push_registration: undefined }), "Missing 'encrypted_push_registration' argument", {
      code: "REQUEST_VARIABLE_MISSING",
    });
    expect(await rows()).toEqual(before);
    expect(pushEvents()).toEqual([]);
  });

  it("answers PUSH_SERVICE_NOT_CONFIGURED without relay keys, and server_settings says so", async () => {
    expect(expectSuccess(await s.api.get(null, "/server_settings")).push_notifications_enabled).toBe(true);
    const keys = s.ctx.config.pushRelayKeys;
    s.ctx.config.pushRelayKeys = new Map();
    try {
      const before = await rows();
      expectError(await s.api.post(s.realm.member, "/mobile_push/register", params(5001, fcm())), "Server is not configured to use push notification service.", {
        code: "PUSH_SERVICE_NOT_CONFIGURED",
      });
      expect(await rows()).toEqual(before);
      expect(expectSuccess(await s.api.get(null, "/server_settings")).push_notifications_enabled).toBe(false);
    } finally {
      s.ctx.config.pushRelayKeys = keys;
    }
  });
});

describe("push_device events keep /register state current", () => {
  it("active and failed outcomes", async () => {
    const u = s.realm.admin;
    const p = { event_types: ["push_device"] };
    await verifyAction(s, u, async () => expectSuccess(await s.api.post(u, "/mobile_push/register", params(6001, fcm()))), p);
    await verifyAction(s, u, async () => expectSuccess(await s.api.post(u, "/mobile_push/register", params(6002, fcm("")))), p);
    await verifyAction(s, u, async () => expectSuccess(await s.api.post(u, "/mobile_push/register", params(6002, fcm("ok")))), p);
  });
});
