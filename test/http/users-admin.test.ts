import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { doCreateUser } from "../../src/actions/users-create.js";
import { doCreateRealm } from "../../src/actions/realms.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { User } from "../../src/db/schema.js";
import { EmailVisibility, Role } from "../../src/lib/roles.js";

let s: TestServer;
let events: PublishedEvent[] = [];
beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((e) => events.push(e));
});
afterAll(() => s.close());
beforeEach(() => {
  events = [];
});

let counter = 0;
async function makeUser(role: number = Role.MEMBER, extra: Partial<{ isBot: boolean; botOwnerId: number }> = {}): Promise<User> {
  counter++;
  return doCreateUser(s.ctx, s.realm.realm, {
    email: `extra${counter}@example.com`,
    fullName: `Extra User ${counter}`,
    password: null,
    role,
    isBot: extra.isBot,
    botOwnerId: extra.botOwnerId,
    botType: extra.isBot ? 1 : undefined,
  });
}
const row = (id: number) => s.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const groupNames = async (userId: number) =>
  (
    await s.db
      .selectFrom("user_group_members")
      .innerJoin("user_groups", "user_groups.id", "user_group_members.group_id")
      .select("user_groups.name")
      .where("user_group_members.user_id", "=", userId)
      .execute()
  )
    .map((r) => r.name)
    .sort();
const realmUserEvents = () => events.filter((e) => e.event.type === "realm_user");

describe("PATCH /users/{user_id}", () => {
  it("changes full name and role, with events to the realm's active users", async () => {
    const target = await makeUser();
    events = [];
    expectSuccess(await s.api.patch(s.realm.admin, `/users/${target.id}`, { full_name: "  New Name  ", role: Role.MODERATOR }));
    const after = await row(target.id);
    expect(after).toMatchObject({ full_name: "New Name", role: Role.MODERATOR });
    expect(await groupNames(target.id)).toEqual(["role:moderators"]);
    const evs = realmUserEvents();
    expect(evs.map((e) => e.event)).toEqual([
      { type: "realm_user", op: "update", person: { user_id: target.id, role: Role.MODERATOR } },
      { type: "realm_user", op: "update", person: { user_id: target.id, full_name: "New Name" } },
    ]);
    expect(evs[0].userIds).toContain(s.realm.owner.id);
    expect(evs[0].userIds).not.toContain(s.other.owner.id);
  });

  it("succeeds without changes and ignores an unchanged or blank name", async () => {
    const target = await makeUser();
    events = [];
    expectSuccess(await s.api.patch(s.realm.admin, `/users/${target.id}`, {}));
    expectSuccess(await s.api.patch(s.realm.admin, `/users/${target.id}`, { full_name: "   ", role: Role.MEMBER }));
    expectSuccess(await s.api.patch(s.realm.admin, `/users/${target.id}`, { full_name: target.full_name }));
    expect(events).toEqual([]);
    expect((await row(target.id)).full_name).toBe(target.full_name);
  });

  it("checks parameters first, in order", async () => {
    const url = `/users/${s.realm.member.id}`;
    expectError(await s.api.patch(s.realm.admin, url, { role: 500 }), "Invalid role");
    expectError(await s.api.patch(s.realm.admin, url, { role: "x" }), "role is not valid JSON");
    expectError(await s.api.patch(s.realm.admin, url, { role: "true" }), "role is not an integer");
    expectError(await s.api.patch(s.realm.admin, url, { profile_data: { id: 1 } }), "profile_data is not a list");
    expectError(await s.api.patch(s.realm.admin, url, { profile_data: [{ id: 1 }] }), "value key is missing from profile_data[0]");
    expectError(await s.api.patch(s.realm.admin, url, { profile_data: [{ id: "a", value: "x" }] }), 'profile_data[0]["id"] is not an integer');
    expectError(await s.api.patch(s.realm.admin, url, { profile_data: [{ id: 1, value: 5 }] }), 'profile_data[0]["value"] is not an allowed_type');
    expectError(await s.api.patch(s.realm.admin, url, { profile_data: [{ id: 1, value: "x", x: 1 }] }), "Unexpected arguments: x");
    // Parameter errors come before the target lookup.
    expectError(await s.api.patch(s.realm.member, "/users/999999", { role: 1 }), "Invalid role");
  });

  it("rejects unknown targets and callers who cannot administer the target", async () => {
    const target = await makeUser();
    expectError(await s.api.patch(s.realm.admin, "/users/999999", { full_name: "Abc" }), "No such user");
    expectError(await s.api.patch(s.realm.admin, `/users/${s.other.member.id}`, { full_name: "Abc" }), "No such user");
    for (const caller of [s.realm.moderator, s.realm.member, s.realm.guest, s.realm.bot]) {
      expectError(await s.api.patch(caller, `/users/${target.id}`, { full_name: "Abc Def" }), "Insufficient permission");
    }
    // A member cannot even edit themselves here.
    expectError(await s.api.patch(s.realm.member, `/users/${s.realm.member.id}`, { full_name: "Abc Def" }), "Insufficient permission");
    expect((await row(target.id)).full_name).toBe(target.full_name);
  });

  it("lets a bot's owner rename the bot but not change its role", async () => {
    const bot = await makeUser(Role.MEMBER, { isBot: true, botOwnerId: s.realm.member.id });
    expectSuccess(await s.api.patch(s.realm.member, `/users/${bot.id}`, { full_name: "Renamed Bot" }));
    expect((await row(bot.id)).full_name).toBe("Renamed Bot");
    expectError(await s.api.patch(s.realm.member, `/users/${bot.id}`, { role: Role.MODERATOR }), "Must be an organization administrator", {
      code: "UNAUTHORIZED_PRINCIPAL",
    });
    expectError(await s.api.patch(s.realm.member, `/users/${bot.id}`, { role: Role.OWNER }), "Must be an organization owner", {
      code: "UNAUTHORIZED_PRINCIPAL",
    });
    expect((await row(bot.id)).role).toBe(Role.MEMBER);
  });

  it("only owners add or remove the owner role; the only owner keeps it", async () => {
    const target = await makeUser();
    expectError(await s.api.patch(s.realm.admin, `/users/${target.id}`, { role: Role.OWNER }), "Must be an organization owner", {
      code: "UNAUTHORIZED_PRINCIPAL",
    });
    expectError(await s.api.patch(s.realm.admin, `/users/${s.realm.owner.id}`, { role: Role.MEMBER }), "Must be an organization owner", {
      code: "UNAUTHORIZED_PRINCIPAL",
    });
    expectError(
      await s.api.patch(s.realm.owner, `/users/${s.realm.owner.id}`, { role: Role.ADMINISTRATOR }),
      "The owner permission cannot be removed from the only organization owner.",
    );
    expect((await row(s.realm.owner.id)).role).toBe(Role.OWNER);
    expectSuccess(await s.api.patch(s.realm.owner, `/users/${target.id}`, { role: Role.OWNER }));
    expect(await groupNames(target.id)).toEqual(["role:owners"]);
    // Two owners now: one may step down.
    expectSuccess(await s.api.patch(s.realm.owner, `/users/${target.id}`, { role: Role.GUEST }));
    expect((await row(target.id)).role).toBe(Role.GUEST);
    // A guest may be made an administrator directly (the role is single-valued).
    expectSuccess(await s.api.patch(s.realm.admin, `/users/${target.id}`, { role: Role.ADMINISTRATOR }));
    expect((await row(target.id)).role).toBe(Role.ADMINISTRATOR);
  });

  it("validates full_name with upstream's messages after role checks", async () => {
    const target = await makeUser();
    const url = `/users/${target.id}`;
    expectError(await s.api.patch(s.realm.admin, url, { full_name: "x".repeat(101) }), "Name too long!");
    expectError(await s.api.patch(s.realm.admin, url, { full_name: "x" }), "Name too short!");
    expectError(await s.api.patch(s.realm.admin, url, { full_name: "Bad *name" }), "Invalid characters in name!");
    expectError(await s.api.patch(s.realm.admin, url, { full_name: "Name|12" }), "Invalid format!");
    // Role change and bad name together: nothing is written.
    expectError(await s.api.patch(s.realm.admin, url, { role: Role.MODERATOR, full_name: "x" }), "Name too short!");
    expect(await row(target.id)).toMatchObject({ role: Role.MEMBER, full_name: target.full_name });
  });

  it("updates and removes profile data of the target", async () => {
    const target = await makeUser();
    const field = await s.db
      .insertInto("custom_profile_fields")
      .values({ realm_id: s.realm.realm.id, name: "Team", field_type: 1, editable_by_user: 0 })
      .returning("id")
      .executeTakeFirstOrThrow();
    events = [];
    expectSuccess(await s.api.patch(s.realm.admin, `/users/${target.id}`, { profile_data: [{ id: field.id, value: "Ops" }] }));
    const values = () => s.db.selectFrom("custom_profile_field_values").select(["value", "rendered_value"]).where("user_id", "=", target.id).execute();
    expect(await values()).toEqual([{ value: "Ops", rendered_value: "<p>Ops</p>" }]);
    expect(realmUserEvents()[0].event).toEqual({
      type: "realm_user",
      op: "update",
      person: { user_id: target.id, custom_profile_field: { id: field.id, value: "Ops", rendered_value: "<p>Ops</p>" } },
    });
    expectError(await s.api.patch(s.realm.admin, `/users/${target.id}`, { profile_data: [{ id: 999999, value: "x" }] }), "Field id 999999 not found.");
    expectError(
      await s.api.patch(s.realm.admin, `/users/${target.id}`, { profile_data: [{ id: field.id, value: "x".repeat(51) }] }),
      "Team is too long (limit: 50 characters)",
    );
    expect(await values()).toEqual([{ value: "Ops", rendered_value: "<p>Ops</p>" }]);
    expectSuccess(await s.api.patch(s.realm.admin, `/users/${target.id}`, { profile_data: [{ id: field.id, value: null }] }));
    expect(await values()).toEqual([]);
  });

  it("changes the email only for an owner holding can_change_user_emails", async () => {
    const target = await makeUser();
    const url = `/users/${target.id}`;
    expectError(await s.api.patch(s.realm.admin, url, { new_email: "new@example.com" }), "Must be an organization owner", {
      code: "UNAUTHORIZED_PRINCIPAL",
    });
    expectError(await s.api.patch(s.realm.owner, url, { new_email: "new@example.com" }), "User not authorized to change user emails");
    await s.db.updateTable("users").set({ can_change_user_emails: 1 }).where("id", "=", s.realm.owner.id).execute();
    const owner = await row(s.realm.owner.id);
    try {
      expectError(await s.api.patch(owner, url, { new_email: "not-an-email" }), "Invalid address.");
      expectError(await s.api.patch(owner, url, { new_email: s.realm.member.delivery_email }), `Email '${s.realm.member.delivery_email}' already in use`);
      expect((await row(target.id)).delivery_email).toBe(target.delivery_email);
      events = [];
      expectSuccess(await s.api.patch(owner, url, { new_email: "Renamed@Example.com" }));
      expect((await row(target.id)).delivery_email).toBe("renamed@example.com");
      expect(realmUserEvents().map((e) => e.event)).toEqual([
        { type: "realm_user", op: "update", person: { user_id: target.id, delivery_email: "renamed@example.com" } },
        { type: "realm_user", op: "update", person: { user_id: target.id, new_email: "renamed@example.com" } },
      ]);
      // The new address authenticates; the old one no longer does.
      const updated = await row(target.id);
      expectSuccess(await s.api.get(updated, "/users/me"));
      expectError(await s.api.get({ ...updated, delivery_email: target.delivery_email }, "/users/me"), "Invalid API key", { status: 401, code: "UNAUTHORIZED" });
    } finally {
      await s.db.updateTable("users").set({ can_change_user_emails: 0 }).where("id", "=", s.realm.owner.id).execute();
    }
  });

  it("sends the new real email only to those who may see it", async () => {
    const target = await makeUser();
    await s.db.updateTable("users").set({ email_address_visibility: EmailVisibility.ADMINS }).where("id", "=", target.id).execute();
    await s.db.updateTable("users").set({ can_change_user_emails: 1 }).where("id", "=", s.realm.owner.id).execute();
    try {
      events = [];
      expectSuccess(await s.api.patch(await row(s.realm.owner.id), `/users/${target.id}`, { new_email: "hidden@example.com" }));
      const evs = realmUserEvents();
      expect(evs).toHaveLength(1);
      expect(evs[0].userIds).toContain(s.realm.admin.id);
      expect(evs[0].userIds).toContain(target.id);
      expect(evs[0].userIds).not.toContain(s.realm.member.id);
    } finally {
      await s.db.updateTable("users").set({ can_change_user_emails: 0 }).where("id", "=", s.realm.owner.id).execute();
    }
  });
});

describe("DELETE /users/{user_id}", () => {
  it("deactivates a user; their API key stops working; an event goes out", async () => {
    const target = await makeUser();
    events = [];
    expectSuccess(await s.api.delete(s.realm.admin, `/users/${target.id}`));
    expect((await row(target.id)).is_active).toBe(0);
    expectError(await s.api.get(target, "/users/me"), "Account is deactivated", { status: 401, code: "UNAUTHORIZED" });
    const ev = realmUserEvents()[0];
    expect(ev.event).toEqual({ type: "realm_user", op: "update", person: { user_id: target.id, is_active: false } });
    expect(ev.userIds).not.toContain(target.id);
    expectError(await s.api.delete(s.realm.admin, `/users/${target.id}`), "User is deactivated");
  });

  it("checks access, owner rules and the last owner", async () => {
    const target = await makeUser();
    for (const caller of [s.realm.moderator, s.realm.member, s.realm.guest]) {
      expectError(await s.api.delete(caller, `/users/${target.id}`), "Insufficient permission");
    }
    expectError(await s.api.delete(s.realm.admin, "/users/999999"), "No such user");
    expectError(await s.api.delete(s.realm.admin, `/users/${s.realm.bot.id}`), "No such user");
    expectError(await s.api.delete(s.realm.admin, `/users/${s.realm.owner.id}`), "Must be an organization owner", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await s.api.delete(s.realm.owner, `/users/${s.realm.owner.id}`), "Cannot deactivate the only organization owner");
    expectError(await s.api.delete(s.realm.admin, `/users/${target.id}`, { deactivation_notification_comment: "x".repeat(2001) }),
      "deactivation_notification_comment is too long (limit: 2000 characters)");
    expect((await row(target.id)).is_active).toBe(1);
    expect((await row(s.realm.owner.id)).is_active).toBe(1);
    expectSuccess(await s.api.delete(s.realm.admin, `/users/${target.id}`, { deactivation_notification_comment: "bye" }));
  });
});

describe("POST /users/{user_id}/reactivate", () => {
  it("reactivates a deactivated user", async () => {
    const target = await makeUser();
    expectSuccess(await s.api.delete(s.realm.admin, `/users/${target.id}`));
    expectError(await s.api.post(s.realm.member, `/users/${target.id}/reactivate`), "Insufficient permission");
    events = [];
    expectSuccess(await s.api.post(s.realm.admin, `/users/${target.id}/reactivate`));
    expect((await row(target.id)).is_active).toBe(1);
    expect(realmUserEvents()[0].event).toEqual({ type: "realm_user", op: "update", person: { user_id: target.id, is_active: true } });
    expectSuccess(await s.api.get(target, "/users/me"));
    expectError(await s.api.post(s.realm.admin, `/users/${target.id}/reactivate`), "User is already active.");
    expectError(await s.api.post(s.realm.admin, "/users/999999/reactivate"), "No such user");
  });
});

describe("DELETE /users/me", () => {
  it("deactivates the caller", async () => {
    const target = await makeUser();
    expectSuccess(await s.api.delete(target, "/users/me"));
    expect((await row(target.id)).is_active).toBe(0);
  });

  it("refuses the only owner", async () => {
    const res = await s.api.delete(s.realm.owner, "/users/me");
    const body = expectError(res, "Cannot deactivate the only organization owner.", { code: "CANNOT_DEACTIVATE_LAST_USER" });
    expect(body).toMatchObject({ is_last_owner: true, entity: "organization owner" });
    expect((await row(s.realm.owner.id)).is_active).toBe(1);
  });
});

describe("DELETE /users/me in a one-user organization", () => {
  it("refuses the only user", async () => {
    const { owner } = await doCreateRealm(s.ctx, { name: "Solo", subdomain: "solo", ownerEmail: "solo@example.com", ownerName: "Solo Owner", ownerPassword: null });
    const res = await s.api.delete(owner, "/users/me", {}, { host: "solo.testserver.local" });
    const body = expectError(res, "Cannot deactivate the only user.", { code: "CANNOT_DEACTIVATE_LAST_USER" });
    expect(body).toMatchObject({ is_last_owner: false, entity: "user" });
    expect((await row(owner.id)).is_active).toBe(1);
  });
});

describe("POST /users", () => {
  it("lets the owner create a user, announced with realm_user add", async () => {
    events = [];
    const body = expectSuccess(await s.api.post(s.realm.owner, "/users", { email: "New.Person@Example.com", password: "s3cret-pw", full_name: "New Person" }));
    const created = await row(body.user_id);
    expect(created).toMatchObject({ delivery_email: "new.person@example.com", full_name: "New Person", role: Role.MEMBER, is_active: 1 });
    const add = realmUserEvents().filter((e) => e.event.op === "add");
    expect(add.length).toBeGreaterThan(0);
    const person = add[0].event.person as Record<string, unknown>;
    expect(person).toMatchObject({ user_id: created.id, full_name: "New Person", email: "new.person@example.com", profile_data: {} });
    expect(add.flatMap((e) => e.userIds)).toContain(s.realm.member.id);
    expect(add.flatMap((e) => e.userIds)).not.toContain(s.other.member.id);
  });

  it("requires an administrator, then the parameters, then the special permission", async () => {
    const params = { email: "x1@example.com", password: "s3cret-pw", full_name: "Xavier One" };
    for (const caller of [s.realm.moderator, s.realm.member, s.realm.guest]) {
      expectError(await s.api.post(caller, "/users", params), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    }
    expectError(await s.api.post(s.realm.admin, "/users", {}), "Missing 'email' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(s.realm.admin, "/users", { email: "a@b.co" }), "Missing 'password' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(s.realm.admin, "/users", { email: "a@b.co", password: "x" }), "Missing 'full_name' argument", {
      code: "REQUEST_VARIABLE_MISSING",
    });
    expectError(await s.api.post(s.realm.admin, "/users", params), "User not authorized to create users");
    await s.db.updateTable("users").set({ can_create_users: 1 }).where("id", "=", s.realm.admin.id).execute();
    try {
      expectSuccess(await s.api.post(s.realm.admin, "/users", params));
    } finally {
      await s.db.updateTable("users").set({ can_create_users: 0 }).where("id", "=", s.realm.admin.id).execute();
    }
  });

  it("validates name, email, uniqueness and password in order", async () => {
    const o = s.realm.owner;
    const count = async () => Number((await s.db.selectFrom("users").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
    const before = await count();
    expectError(await s.api.post(o, "/users", { email: "bad", password: "s3cret-pw", full_name: "x" }), "Name too short!");
    expectError(await s.api.post(o, "/users", { email: "bad", password: "s3cret-pw", full_name: "Good Name" }), "Bad name or username");
    expectError(await s.api.post(o, "/users", { email: s.realm.member.delivery_email, password: "x", full_name: "Good Name" }),
      `Email '${s.realm.member.delivery_email}' already in use`);
    expectError(await s.api.post(o, "/users", { email: "weak@example.com", password: "abc", full_name: "Good Name" }), "The password is too weak.");
    expect(await count()).toBe(before);
  });

  it("reports unknown parameters as ignored", async () => {
    const res = await s.api.post(s.realm.owner, "/users", { email: "ign@example.com", password: "s3cret-pw", full_name: "Ign Ored", short_name: "x" });
    expect(res.json().ignored_parameters_unsupported).toEqual(["short_name"]);
  });
});
