/**
 * PATCH /settings keeps /register current: user_settings (object and legacy top-level
 * keys), the user's own identity keys and others' realm_users records.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { register, verifyAction } from "../support/events.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const MODERN = { client_capabilities: { notification_settings_null: true, user_settings_object: true } };
const change = (user: any, params: Record<string, unknown>) => async () => expectSuccess(await s.api.patch(user, "/settings", params));

describe("user_settings in /register", () => {
  it("has every personal setting; legacy top-level keys only without user_settings_object", async () => {
    const modern = await register(s, s.realm.member, { event_types: ["user_settings", "update_display_settings", "update_global_notifications"], ...MODERN });
    expect(modern.user_settings).toMatchObject({
      default_language: "en",
      enable_drafts_synchronization: true,
      presence_enabled: true,
      email_address_visibility: 1,
      timezone: expect.any(String),
      enter_sends: false,
      emojiset: "google",
      emojiset_choices: expect.arrayContaining([{ key: "google", text: "Google" }]),
      available_notification_sounds: expect.any(Array),
      resolved_topic_notice_auto_read_policy: "except_followed",
    });
    expect(modern.presence_enabled).toBeUndefined();
    const legacy = await register(s, s.realm.member, { event_types: ["update_display_settings", "update_global_notifications"] });
    expect(legacy).toMatchObject({ default_language: "en", enable_drafts_synchronization: true, presence_enabled: true, emojiset: "google", timezone: expect.any(String) });
    expect(legacy.user_settings).toBeUndefined();
  });
});

describe("settings events keep /register state current", () => {
  for (const [label, params] of [
    ["with user_settings_object", MODERN],
    ["legacy client", {}],
  ] as const) {
    it(`stored settings (${label})`, async () => {
      const viewer = s.realm.member;
      await verifyAction(s, viewer, change(viewer, { default_language: "fr", enable_drafts_synchronization: false }), params);
      await verifyAction(s, viewer, change(viewer, { presence_enabled: false }), params);
      await verifyAction(s, viewer, change(viewer, { default_language: "en", enable_drafts_synchronization: true, presence_enabled: true }), params);
    });
  }

  it("full name and time zone, seen by the user and by others", async () => {
    const { other, member } = s.realm;
    await verifyAction(s, other, change(other, { full_name: "Otto Renamed" }));
    await verifyAction(s, member, change(other, { full_name: "Otto Other" }));
    await verifyAction(s, other, change(other, { timezone: "America/New_York" }));
    await verifyAction(s, member, change(other, { timezone: "Asia/Kolkata" }));
  });

  it("email visibility, seen by the user, by those losing access and by those gaining it", async () => {
    const { other, moderator, admin } = s.realm;
    // client_hashavatar: hash avatars shown only to those who see the real address are not re-announced.
    const params = { client_hashavatar: false };
    await verifyAction(s, other, change(other, { email_address_visibility: 3 }), params);
    await verifyAction(s, moderator, change(other, { email_address_visibility: 4 }), params);
    await verifyAction(s, admin, change(other, { email_address_visibility: 3 }), params);
    await verifyAction(s, moderator, change(other, { email_address_visibility: 1 }), params);
  });
});
