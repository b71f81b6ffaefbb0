import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { EmailVisibility } from "../../src/lib/roles.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const md5 = (t: string) => crypto.createHash("md5").update(t).digest("hex");
const hashUrl = (email: string, v = 1) => `https://secure.gravatar.com/avatar/${md5(email.toLowerCase())}?d=identicon&version=${v}`;
const setVisibility = (userId: number, vis: number) =>
  s.db.updateTable("users").set({ email_address_visibility: vis }).where("id", "=", userId).execute();

describe("GET /users/me", () => {
  it("returns the caller's record in upstream key order", async () => {
    const { member } = s.realm;
    const body = expectSuccess(await s.api.get(member, "/users/me"));
    expect(Object.keys(body)).toEqual([
      "result", "msg", "email", "user_id", "avatar_version", "is_admin", "is_owner", "is_guest",
      "role", "is_bot", "full_name", "timezone", "is_active", "date_joined", "avatar_url", "delivery_email",
      "profile_data", "max_message_id",
    ]);
    expect(body).toMatchObject({
      email: member.delivery_email,
      user_id: member.id,
      avatar_version: 1,
      is_admin: false,
      is_owner: false,
      is_guest: false,
      role: 400,
      is_bot: false,
      full_name: "Mary Member",
      timezone: "",
      is_active: true,
      avatar_url: hashUrl(member.delivery_email),
      delivery_email: member.delivery_email,
      profile_data: {},
      max_message_id: -1,
    });
    expect(body.date_joined).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
  });

  it("reports the highest message id the user has a row for", async () => {
    const { member, other } = s.realm;
    const now = Math.floor(Date.now() / 1000);
    const recipient = await s.db.insertInto("recipients").values({ realm_id: s.realm.realm.id, type: 1, type_id: other.id }).returning("id").executeTakeFirstOrThrow();
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const m = await s.db
        .insertInto("messages")
        .values({ realm_id: s.realm.realm.id, sender_id: member.id, recipient_id: recipient.id, content: "x", rendered_content: "<p>x</p>", date_sent: now })
        .returning("id")
        .executeTakeFirstOrThrow();
      ids.push(m.id);
    }
    await s.db.insertInto("user_messages").values({ realm_id: s.realm.realm.id, user_id: other.id, message_id: ids[0] }).execute();
    expect(expectSuccess(await s.api.get(other, "/users/me")).max_message_id).toBe(ids[0]);
  });

  it("uses the dummy email when the caller's visibility is not everyone, delivery_email stays real", async () => {
    const { guest } = s.realm;
    await setVisibility(guest.id, EmailVisibility.ADMINS);
    const body = expectSuccess(await s.api.get(guest, "/users/me"));
    expect(body.email).toBe(`user${guest.id}@testserver.local`);
    expect(body.delivery_email).toBe(guest.delivery_email);
    expect(body.is_guest).toBe(true);
    await setVisibility(guest.id, EmailVisibility.EVERYONE);
  });

  it("includes bot fields, not profile_data, for a bot caller", async () => {
    const { bot, member } = s.realm;
    const body = expectSuccess(await s.api.get(bot, "/users/me"));
    expect(body).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: member.id });
    expect(body.profile_data).toBeUndefined();
    expect(Object.keys(body).slice(-3)).toEqual(["bot_type", "bot_owner_id", "max_message_id"]);
  });

  it("does not report ignored parameters (no parameter framework) and needs credentials", async () => {
    const body = (await s.api.get(s.realm.member, "/users/me", { junk: 1 })).json();
    expect(body.ignored_parameters_unsupported).toBeUndefined();
    expectError(await s.api.get(null, "/users/me"), "Not logged in: API authentication or user session required", {
      status: 401,
      code: "UNAUTHORIZED",
    });
  });
});

describe("GET /users", () => {
  it("lists every user of the realm, including deactivated users and bots, and nobody else", async () => {
    const { realm } = s;
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", realm.other.id).execute();
    const body = expectSuccess(await s.api.get(realm.admin, "/users"));
    const ids = body.members.map((m: any) => m.user_id).sort((a: number, b: number) => a - b);
    const expected = [realm.owner, realm.admin, realm.moderator, realm.member, realm.other, realm.guest, realm.bot].map((u) => u.id).sort((a, b) => a - b);
    expect(ids).toEqual(expected);
    const other = body.members.find((m: any) => m.user_id === realm.other.id);
    expect(other.is_active).toBe(false);
    await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", realm.other.id).execute();
  });

  it("shapes human and bot records per spec 2.5", async () => {
    const { member, bot } = s.realm;
    const body = expectSuccess(await s.api.get(member, "/users", { client_hashavatar: false }));
    const human = body.members.find((m: any) => m.user_id === member.id);
    expect(Object.keys(human)).toEqual([
      "email", "user_id", "avatar_version", "is_admin", "is_owner", "is_guest", "role", "is_bot",
      "full_name", "timezone", "is_active", "date_joined", "avatar_url", "delivery_email", "bot_type", "bot_owner_id",
    ]);
    expect(human).toMatchObject({ bot_type: null, bot_owner_id: null, avatar_url: hashUrl(member.delivery_email) });
    const b = body.members.find((m: any) => m.user_id === bot.id);
    expect(b).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: member.id, email: bot.delivery_email, delivery_email: bot.delivery_email });
    expect(b.profile_data).toBeUndefined();
  });

  it("client_hashavatar (default true) nulls avatar_url only when the requester sees the real email", async () => {
    const { member, guest, admin } = s.realm;
    await setVisibility(member.id, EmailVisibility.ADMINS);
    const asGuest = expectSuccess(await s.api.get(guest, "/users"));
    const seenByGuest = asGuest.members.find((m: any) => m.user_id === member.id);
    expect(seenByGuest).toMatchObject({ email: `user${member.id}@testserver.local`, delivery_email: null, avatar_url: hashUrl(member.delivery_email) });
    const asAdmin = expectSuccess(await s.api.get(admin, "/users"));
    const seenByAdmin = asAdmin.members.find((m: any) => m.user_id === member.id);
    expect(seenByAdmin).toMatchObject({ email: `user${member.id}@testserver.local`, delivery_email: member.delivery_email, avatar_url: null });
    await setVisibility(member.id, EmailVisibility.EVERYONE);
  });

  it("applies each visibility level to each role", async () => {
    const { member, guest, moderator, admin, other } = s.realm;
    const cases: Array<[number, Record<string, boolean>]> = [
      [EmailVisibility.EVERYONE, { guest: true, other: true, moderator: true, admin: true }],
      [EmailVisibility.MEMBERS, { guest: false, other: true, moderator: true, admin: true }],
      [EmailVisibility.MODERATORS, { guest: false, other: false, moderator: true, admin: true }],
      [EmailVisibility.ADMINS, { guest: false, other: false, moderator: false, admin: true }],
      [EmailVisibility.NOBODY, { guest: false, other: false, moderator: false, admin: false }],
    ];
    const callers = { guest, other, moderator, admin };
    for (const [vis, expected] of cases) {
      await setVisibility(member.id, vis);
      for (const [name, caller] of Object.entries(callers)) {
        const body = expectSuccess(await s.api.get(caller, "/users", { user_ids: [member.id] }));
        const rec = body.members[0];
        expect({ vis, name, sees: rec.delivery_email !== null }).toEqual({ vis, name, sees: expected[name] });
      }
      const self = expectSuccess(await s.api.get(member, "/users", { user_ids: [member.id] })).members[0];
      expect(self.delivery_email).toBe(member.delivery_email);
    }
    await setVisibility(member.id, EmailVisibility.EVERYONE);
  });

  it("includes profile_data for humans only when asked", async () => {
    const { member, owner, bot } = s.realm;
    const field = await s.db
      .insertInto("custom_profile_fields")
      .values({ realm_id: s.realm.realm.id, name: "Phone", field_type: 1, order: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    await s.db
      .insertInto("custom_profile_field_values")
      .values({ realm_id: s.realm.realm.id, user_id: member.id, field_id: field.id, value: "123", rendered_value: "<p>123</p>" })
      .execute();
    const body = expectSuccess(await s.api.get(owner, "/users", { include_custom_profile_fields: true }));
    const m = body.members.find((x: any) => x.user_id === member.id);
    expect(m.profile_data).toEqual({ [String(field.id)]: { value: "123", rendered_value: "<p>123</p>" } });
    expect(body.members.find((x: any) => x.user_id === owner.id).profile_data).toEqual({});
    expect(body.members.find((x: any) => x.user_id === bot.id).profile_data).toBeUndefined();
    const without = expectSuccess(await s.api.get(owner, "/users"));
    expect(without.members.find((x: any) => x.user_id === member.id).profile_data).toBeUndefined();
  });

  it("limits the list with user_ids and rejects unknown or foreign ids", async () => {
    const { member, admin } = s.realm;
    const body = expectSuccess(await s.api.get(member, "/users", { user_ids: [admin.id, member.id] }));
    expect(body.members.map((m: any) => m.user_id).sort()).toEqual([admin.id, member.id].sort());
    expect(expectSuccess(await s.api.get(member, "/users", { user_ids: [] })).members).toEqual([]);
    expectError(await s.api.get(member, "/users", { user_ids: [member.id, 999999] }), "Invalid user ID: 999999");
    expectError(await s.api.get(member, "/users", { user_ids: [s.other.member.id] }), `Invalid user ID: ${s.other.member.id}`);
    expectError(await s.api.get(member, "/users", { user_ids: "[1," }), "user_ids is not valid JSON");
    expectError(await s.api.get(member, "/users", { user_ids: ["a"] }), "user_ids[0] is not an integer");
  });

  it("validates its boolean parameters and reports ignored ones", async () => {
    const { member } = s.realm;
    expectError(await s.api.get(member, "/users", { client_hashavatar: "yes" }), "client_hashavatar is not valid JSON");
    expectError(await s.api.get(member, "/users", { include_custom_profile_fields: 1 }), "include_custom_profile_fields is not a boolean");
    const body = (await s.api.get(member, "/users", { bogus: "x", client: "test" })).json();
    expect(body.ignored_parameters_unsupported).toEqual(["bogus"]);
  });

  it("allows spectators only with the public-access option, without personal details", async () => {
    expectError(await s.api.get(null, "/users"), "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
    await s.db.updateTable("realms").set({ enable_spectator_access: 1 }).where("id", "=", s.realm.realm.id).execute();
    try {
      await setVisibility(s.realm.member.id, EmailVisibility.MEMBERS);
      const body = expectSuccess(await s.api.get(null, "/users", { include_custom_profile_fields: true }));
      expect(body.members).toHaveLength(7);
      const m = body.members.find((x: any) => x.user_id === s.realm.member.id);
      expect(m.delivery_email).toBeNull();
      expect(m.email).toBe(`user${s.realm.member.id}@testserver.local`);
      expect(m.timezone).toBeUndefined();
      expect(m.profile_data).toBeUndefined();
      expect(m.date_joined).toMatch(/^\d{4}-\d\d-\d\d$/);
      // The other realm keeps the option off.
      expectError(await s.api.get(null, "/users", {}, { host: s.other.host }), "Not logged in: API authentication or user session required", {
        status: 401,
        code: "UNAUTHORIZED",
      });
    } finally {
      await setVisibility(s.realm.member.id, EmailVisibility.EVERYONE);
      await s.db.updateTable("realms").set({ enable_spectator_access: 0 }).where("id", "=", s.realm.realm.id).execute();
    }
  });

  it("rejects bad credentials even though anonymous access is possible", async () => {
    const res = await s.api.get({ ...s.realm.member, api_key: "x".repeat(32) }, "/users");
    expectError(res, "Invalid API key", { status: 401, code: "UNAUTHORIZED" });
  });
});

describe("GET /users/{user_id}", () => {
  it("returns one user, bots and deactivated users included", async () => {
    const { member, bot, other } = s.realm;
    const body = expectSuccess(await s.api.get(member, `/users/${other.id}`));
    expect(body.user).toMatchObject({ user_id: other.id, full_name: "Otto Other", avatar_url: null });
    expect(expectSuccess(await s.api.get(member, `/users/${bot.id}`)).user.is_bot).toBe(true);
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", other.id).execute();
    expect(expectSuccess(await s.api.get(member, `/users/${other.id}`)).user.is_active).toBe(false);
    await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", other.id).execute();
  });

  it("includes profile_data when asked", async () => {
    const body = expectSuccess(await s.api.get(s.realm.owner, `/users/${s.realm.owner.id}`, { include_custom_profile_fields: true }));
    expect(body.user.profile_data).toEqual({});
  });

  it("answers No such user for unknown ids and users of other realms", async () => {
    expectError(await s.api.get(s.realm.member, "/users/999999"), "No such user");
    expectError(await s.api.get(s.realm.member, `/users/${s.other.member.id}`), "No such user");
  });
});

describe("GET /users/{email}", () => {
  it("finds a user by a public real email (any case) and by the dummy address", async () => {
    const { member, other } = s.realm;
    const body = expectSuccess(await s.api.get(member, `/users/${encodeURIComponent(other.delivery_email.toUpperCase())}`));
    expect(body.user.user_id).toBe(other.id);
    const dummy = expectSuccess(await s.api.get(member, `/users/user${other.id}@testserver.local`));
    expect(dummy.user.user_id).toBe(other.id);
  });

  it("finds a real email only when the target's visibility lets the requester see it", async () => {
    const { member, guest, admin } = s.realm;
    await setVisibility(member.id, EmailVisibility.ADMINS);
    try {
      expectError(await s.api.get(guest, `/users/${member.delivery_email}`), "No such user");
      const asAdmin = expectSuccess(await s.api.get(admin, `/users/${member.delivery_email}`));
      expect(asAdmin.user).toMatchObject({ user_id: member.id, email: `user${member.id}@testserver.local`, delivery_email: member.delivery_email });
      const dummy = expectSuccess(await s.api.get(guest, `/users/user${member.id}@testserver.local`));
      expect(dummy.user).toMatchObject({ user_id: member.id, delivery_email: null });
      expect(expectSuccess(await s.api.get(member, `/users/${member.delivery_email}`)).user.user_id).toBe(member.id);
    } finally {
      await setVisibility(member.id, EmailVisibility.EVERYONE);
    }
  });

  it("answers No such user for unknown and foreign addresses", async () => {
    const { member } = s.realm;
    expectError(await s.api.get(member, "/users/nobody@example.com"), "No such user");
    expectError(await s.api.get(member, "/users/invalid"), "No such user");
    expectError(await s.api.get(member, `/users/${s.other.member.delivery_email}`), "No such user");
    expectError(await s.api.get(member, `/users/user${s.other.member.id}@testserver.local`), "No such user");
  });

  it("only supports GET on the email form", async () => {
    const res = await s.api.patch(s.realm.admin, "/users/someone@example.com", { full_name: "X Y" });
    expect(res.statusCode).toBe(405);
    expect(res.json().allowed_methods).toEqual(["GET", "HEAD"]);
  });
});

describe("limited guests (can_access_all_users_group)", () => {
  const limitGuests = async () => {
    const groups = await s.db.selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", s.realm.realm.id).execute();
    const membersGroup = groups.find((g) => g.name === "role:members")!.id;
    await s.db.updateTable("realms").set({ can_access_all_users_group_id: membersGroup }).where("id", "=", s.realm.realm.id).execute();
  };
  const restore = () =>
    s.db.updateTable("realms").set({ can_access_all_users_group_id: s.realm.realm.can_access_all_users_group_id }).where("id", "=", s.realm.realm.id).execute();
  const subsBefore = async () => s.db.selectFrom("subscriptions").select(["id", "active"]).where("user_id", "=", s.realm.guest.id).execute();

  it("see only themselves, bots, channel peers and DM peers; others are placeholders", async () => {
    const { guest, other, member, admin, bot } = s.realm;
    const saved = await subsBefore();
    await s.db.updateTable("subscriptions").set({ active: 0 }).where("user_id", "=", guest.id).execute();
    await limitGuests();
    try {
      const { createChannel } = await import("../support/channels.js");
      await createChannel(s, { name: "limited-room", subscribers: [guest, other] });
      const body = expectSuccess(await s.api.get(guest, "/users"));
      const byId = new Map(body.members.map((u: any) => [u.user_id, u]));
      expect((byId.get(other.id) as any).full_name).toBe(other.full_name);
      expect((byId.get(guest.id) as any).full_name).toBe(guest.full_name);
      expect((byId.get(bot.id) as any).full_name).toBe(bot.full_name);
      expect(byId.get(admin.id)).toEqual({
        email: `user${admin.id}@testserver.local`,
        user_id: admin.id,
        avatar_version: 1,
        is_admin: false,
        is_owner: false,
        is_guest: false,
        role: 400,
        is_bot: false,
        full_name: "Unknown user",
        timezone: "",
        is_active: true,
        date_joined: "1970-01-01T00:00:00+00:00",
        delivery_email: null,
        avatar_url: "/static/images/unknown-user-avatar.png",
        profile_data: {},
      });
      // Every user is listed (inaccessible ones as placeholders).
      const asMember = expectSuccess(await s.api.get(member, "/users"));
      expect(body.members.map((u: any) => u.user_id)).toEqual(asMember.members.map((u: any) => u.user_id));
      // One user: inaccessible users are refused.
      expectError(await s.api.get(guest, `/users/${admin.id}`), "Insufficient permission");
      expectError(await s.api.get(guest, `/users/user${admin.id}@testserver.local`), "Insufficient permission");
      expectSuccess(await s.api.get(guest, `/users/${other.id}`));
      // Members are not limited.
      expect(expectSuccess(await s.api.get(member, `/users/${admin.id}`)).user.full_name).toBe(admin.full_name);
      // /register: placeholders, or nothing with user_list_incomplete.
      const state = expectSuccess(await s.api.post(guest, "/register", { event_types: ["realm_user"] }));
      expect(state.realm_users.find((u: any) => u.user_id === admin.id).full_name).toBe("Unknown user");
      const incomplete = expectSuccess(
        await s.api.post(guest, "/register", { event_types: ["realm_user"], client_capabilities: { notification_settings_null: true, user_list_incomplete: true } }),
      );
      expect(incomplete.realm_users.map((u: any) => u.user_id)).not.toContain(admin.id);
      expect(incomplete.realm_users.map((u: any) => u.user_id)).toContain(other.id);
    } finally {
      await restore();
      for (const row of saved) await s.db.updateTable("subscriptions").set({ active: row.active }).where("id", "=", row.id).execute();
    }
    // With the default group (role:everyone) the guest sees everyone again.
    expect(expectSuccess(await s.api.get(guest, `/users/${admin.id}`)).user.full_name).toBe(admin.full_name);
  });
});
