import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
const events: PublishedEvent[] = [];

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((e) => events.push(e));
});
afterAll(() => s.close());
beforeEach(() => {
  events.length = 0;
});

const SETTING_COLUMNS = ["full_name", "timezone", "default_language", "enable_drafts_synchronization", "presence_enabled", "email_address_visibility"] as const;
const row = (id: number) => s.db.selectFrom("users").select(SETTING_COLUMNS).where("id", "=", id).executeTakeFirstOrThrow();
const allRows = () => s.db.selectFrom("users").select(["id", ...SETTING_COLUMNS]).orderBy("id").execute();
const sorted = (ids: readonly number[]) => [...ids].sort((a, b) => a - b);
// Every active member of the realm; the notification bot is no member (upstream's system bots live outside it).
const activeIds = async () =>
  (
    await s.db
      .selectFrom("users")
      .select("id")
      .where("realm_id", "=", s.realm.realm.id)
      .where("is_active", "=", 1)
      .where("id", "!=", s.realm.realm.notification_bot_id!)
      .orderBy("id")
      .execute()
  ).map((u) => u.id);

describe("PATCH /settings", () => {
  it("changes stored settings, each with a user_settings event to the user only", async () => {
    const { member } = s.realm;
    const body = expectSuccess(
      await s.api.patch(member, "/settings", { default_language: "de", enable_drafts_synchronization: false, presence_enabled: false }),
    );
    expect(body).toEqual({ result: "success", msg: "" });
    expect(await row(member.id)).toMatchObject({ default_language: "de", enable_drafts_synchronization: 0, presence_enabled: 0 });
    expect(events.map((e) => [e.event, e.userIds])).toEqual([
      [{ type: "user_settings", op: "update", property: "default_language", value: "de", language_name: "Deutsch" }, [member.id]],
      [{ type: "user_settings", op: "update", property: "enable_drafts_synchronization", value: false }, [member.id]],
      [{ type: "user_settings", op: "update", property: "presence_enabled", value: false }, [member.id]],
    ]);
    // Setting the same values again changes and announces nothing.
    events.length = 0;
    expectSuccess(await s.api.patch(member, "/settings", { default_language: "de", presence_enabled: false }));
    expect(events).toEqual([]);
    expectSuccess(await s.api.patch(member, "/settings", { default_language: "en", enable_drafts_synchronization: true, presence_enabled: true }));
  });

  it("renames the user, telling every active user of the realm", async () => {
    const { other } = s.realm;
    expectSuccess(await s.api.patch(other, "/settings", { full_name: "  Otto Settings  " }));
    expect((await row(other.id)).full_name).toBe("Otto Settings");
    expect(events).toHaveLength(1);
    expect(events[0].event).toEqual({ type: "realm_user", op: "update", person: { user_id: other.id, full_name: "Otto Settings" } });
    expect(sorted(events[0].userIds)).toEqual(await activeIds());
  });

  it("changes the time zone: a user_settings event to the user, a realm_user update to everyone", async () => {
    const { moderator } = s.realm;
    expectSuccess(await s.api.patch(moderator, "/settings", { timezone: "Europe/Berlin" }));
    expect((await row(moderator.id)).timezone).toBe("Europe/Berlin");
    expect(events.map((e) => e.event)).toEqual([
      { type: "user_settings", op: "update", property: "timezone", value: "Europe/Berlin" },
      { type: "realm_user", op: "update", person: { email: expect.any(String), user_id: moderator.id, timezone: "Europe/Berlin" } },
    ]);
    expect(events[0].userIds).toEqual([moderator.id]);
    expect(sorted(events[1].userIds)).toEqual(await activeIds());
  });

  it("changes email visibility: new API email to everyone, real address to those who gain access, null to those who lose it", async () => {
    const { admin, guest, member, moderator } = s.realm;
    // everyone (1) → administrators only (3)
    expectSuccess(await s.api.patch(member, "/settings", { email_address_visibility: 3 }));
    expect((await row(member.id)).email_address_visibility).toBe(3);
    const [settingEvent, emailEvent, losing] = events;
    expect(settingEvent.event).toEqual({ type: "user_settings", op: "update", property: "email_address_visibility", value: 3 });
    expect(emailEvent.event).toEqual({ type: "realm_user", op: "update", person: { user_id: member.id, new_email: `user${member.id}@${s.realm.host}` } });
    expect(sorted(emailEvent.userIds)).toEqual(await activeIds());
    expect(losing.event).toEqual({ type: "realm_user", op: "update", person: { user_id: member.id, delivery_email: null } });
    expect(losing.userIds).toContain(moderator.id);
    expect(losing.userIds).toContain(guest.id);
    expect(losing.userIds).not.toContain(admin.id);
    expect(losing.userIds).not.toContain(member.id);
    // administrators only (3) → members (2): moderators and members gain access, no API email change.
    events.length = 0;
    expectSuccess(await s.api.patch(member, "/settings", { email_address_visibility: 2 }));
    expect(events.map((e) => e.event)).toEqual([
      { type: "user_settings", op: "update", property: "email_address_visibility", value: 2 },
      { type: "realm_user", op: "update", person: { user_id: member.id, delivery_email: member.delivery_email } },
    ]);
    expect(events[1].userIds).toContain(moderator.id);
    expect(events[1].userIds).not.toContain(guest.id);
    expectSuccess(await s.api.patch(member, "/settings", { email_address_visibility: 1 }));
  });

  it("reports parameters it does not store as ignored", async () => {
    const res = await s.api.patch(s.realm.member, "/settings", { enter_sends: true, presence_enabled: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ result: "success", msg: "", ignored_parameters_unsupported: ["enter_sends"] });
  });

  it("validates with upstream's messages, changing nothing", async () => {
    const before = await allRows();
    const { member } = s.realm;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ default_language: "xx" }, "Invalid default_language"],
      [{ timezone: "Mars/Olympus" }, "timezone is not a recognized time zone"],
      [{ timezone: "" }, "timezone is not a recognized time zone"],
      [{ email_address_visibility: 7 }, "Invalid email_address_visibility"],
      [{ email_address_visibility: "x" }, "email_address_visibility is not valid JSON"],
      [{ presence_enabled: "yes" }, "presence_enabled is not valid JSON"],
      [{ enable_drafts_synchronization: 1 }, "enable_drafts_synchronization is not a boolean"],
      [{ full_name: "x" }, "Name too short!"],
      [{ full_name: "" }, "Name too short!"],
      [{ full_name: "a".repeat(101) }, "Name too long!"],
      [{ full_name: "Bad*Name" }, "Invalid characters in name!"],
      // The first bad parameter in upstream's order wins; nothing before it is applied.
      [{ default_language: "de", timezone: "Nowhere/Land", presence_enabled: false }, "timezone is not a recognized time zone"],
      [{ presence_enabled: false, full_name: "x" }, "Name too short!"],
    ];
    for (const [params, msg] of cases) {
      expectError(await s.api.patch(member, "/settings", params), msg);
    }
    expect(await allRows()).toEqual(before);
    expect(events).toEqual([]);
  });

  it("refuses bots and anonymous requests", async () => {
    const before = await allRows();
    expectError(await s.api.patch(s.realm.bot, "/settings", { presence_enabled: false }), "This endpoint does not accept bot requests.");
    expectError(await s.api.patch(null, "/settings", { presence_enabled: false }), "Not logged in: API authentication or user session required", {
      status: 401,
      code: "UNAUTHORIZED",
    });
    expect(await allRows()).toEqual(before);
  });

  it("is scoped to the caller's own account in their own realm", async () => {
    const { member } = s.other;
    const beforeFirst = await row(s.realm.member.id);
    expectSuccess(await s.api.patch(member, "/settings", { timezone: "Asia/Tokyo" }));
    expect((await row(member.id)).timezone).toBe("Asia/Tokyo");
    expect(await row(s.realm.member.id)).toEqual(beforeFirst);
    const realmEvent = events.find((e) => e.event.type === "realm_user")!;
    expect(realmEvent.realmId).toBe(s.other.realm.id);
    expect(realmEvent.userIds).not.toContain(s.realm.member.id);
  });
});
