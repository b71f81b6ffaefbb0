/** User groups: spec 4.10 (create) and 4.15 (members), the reads, PATCH and deactivation. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess, type Params } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { User } from "../../src/db/schema.js";

let s: TestServer;
let published: PublishedEvent[] = [];

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const realmId = () => s.realm.realm.id;

async function systemGroup(name: string, realm = s.realm.realm.id): Promise<number> {
  const row = await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", realm).where("name", "=", name).executeTakeFirstOrThrow();
  return row.id;
}

/** Every group row, membership and edge of both realms: what a failed request must leave alone. */
async function snapshot() {
  return {
    groups: await s.db.selectFrom("user_groups").selectAll().orderBy("id").execute(),
    members: await s.db.selectFrom("user_group_members").selectAll().orderBy("group_id").orderBy("user_id").execute(),
    edges: await s.db.selectFrom("user_group_subgroups").selectAll().orderBy("supergroup_id").orderBy("subgroup_id").execute(),
    messages: (await s.db.selectFrom("messages").select("id").execute()).length,
  };
}

async function expectRefused(res: Promise<import("fastify").LightMyRequestResponse>, msg: string, opts: { code?: string; status?: number } = {}) {
  const before = await snapshot();
  published = [];
  const body = expectError(await res, msg, opts);
  expect(await snapshot()).toEqual(before);
  expect(published.filter((p) => p.event.type === "user_group" || p.event.type === "message")).toEqual([]);
  return body;
}

let counter = 0;
async function createGroup(user: User, params: Params = {}): Promise<number> {
  const body = expectSuccess(await s.api.post(user, "/user_groups/create", { name: `group-${++counter}`, description: "d", members: [], ...params }));
  return body.group_id;
}

async function members(groupId: number): Promise<number[]> {
  return (await s.db.selectFrom("user_group_members").select("user_id").where("group_id", "=", groupId).orderBy("user_id").execute()).map((r) => r.user_id);
}
async function subgroupsOf(groupId: number): Promise<number[]> {
  return (await s.db.selectFrom("user_group_subgroups").select("subgroup_id").where("supergroup_id", "=", groupId).orderBy("subgroup_id").execute()).map((r) => r.subgroup_id);
}
async function groupRow(id: number) {
  return s.db.selectFrom("user_groups").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}
const allActiveIds = () => {
  const { owner, admin, moderator, member, other, guest, bot } = s.realm;
  return [owner, admin, moderator, member, other, guest, bot].map((u) => u.id).sort((a, b) => a - b);
};
const groupEvents = () => published.filter((p) => p.event.type === "user_group");
const updateMembers = (user: User, groupId: number, params: Params) => s.api.post(user, `/user_groups/${groupId}/members`, params);

describe("POST /user_groups/create (4.10)", () => {
  it("creates the group with upstream's defaults and announces it to every active user", async () => {
    const { member, other, bot } = s.realm;
    const res = await s.api.post(member, "/user_groups/create", { name: "support", description: "Support team", members: [other.id, bot.id] });
    const body = expectSuccess(res);
    expect(body).toEqual({ result: "success", msg: "", group_id: expect.any(Number) });
    const id = body.group_id;
    const row = await groupRow(id);
    expect(row).toMatchObject({ realm_id: realmId(), name: "support", description: "Support team", is_system_group: 0, deactivated: 0, creator_id: member.id });
    expect(await members(id)).toEqual([other.id, bot.id].sort((a, b) => a - b));
    // can_add_members_group and can_manage_group: each its own anonymous group of the creator.
    for (const column of ["can_add_members_group_id", "can_manage_group_id"] as const) {
      const anon = await groupRow(row[column]!);
      expect(anon.name).toBeNull();
      expect(await members(anon.id)).toEqual([member.id]);
    }
    expect(row.can_add_members_group_id).not.toBe(row.can_manage_group_id);
    expect(row.can_join_group_id).toBe(await systemGroup("role:nobody"));
    expect(row.can_leave_group_id).toBe(await systemGroup("role:everyone"));
    expect(row.can_mention_group_id).toBe(await systemGroup("role:everyone"));
    expect(row.can_remove_members_group_id).toBe(await systemGroup("role:nobody"));
    const [ev] = groupEvents();
    expect(groupEvents()).toHaveLength(1);
    expect([...ev.userIds].sort((a, b) => a - b)).toEqual(allActiveIds());
    expect(ev.event).toEqual({
      type: "user_group",
      op: "add",
      group: {
        id,
        name: "support",
        description: "Support team",
        members: [other.id, bot.id].sort((a, b) => a - b),
        direct_subgroup_ids: [],
        is_system_group: false,
        creator_id: member.id,
        date_created: expect.any(Number),
        deactivated: false,
        can_add_members_group: { direct_members: [member.id], direct_subgroups: [] },
        can_join_group: await systemGroup("role:nobody"),
        can_leave_group: await systemGroup("role:everyone"),
        can_manage_group: { direct_members: [member.id], direct_subgroups: [] },
        can_mention_group: await systemGroup("role:everyone"),
        can_remove_members_group: await systemGroup("role:nobody"),
      },
    });
  });

  it("takes subgroups and the six settings as group ids or {direct_members, direct_subgroups}", async () => {
    const { member, other, admin } = s.realm;
    const sub = await createGroup(member, { members: [other.id] });
    const mods = await systemGroup("role:moderators");
    published = [];
    const id = await createGroup(member, {
      subgroups: [sub, mods],
      can_add_members_group: { direct_members: [other.id, other.id], direct_subgroups: [sub] },
      can_join_group: await systemGroup("role:members"),
      can_leave_group: await systemGroup("role:nobody"),
      // Normalised as upstream: one subgroup and no members is that group; empty is role:nobody.
      can_manage_group: { direct_members: [], direct_subgroups: [mods] },
      can_mention_group: { direct_members: [], direct_subgroups: [] },
      can_remove_members_group: admin.id === 0 ? 0 : { direct_members: [admin.id], direct_subgroups: [] },
    });
    expect(await subgroupsOf(id)).toEqual([sub, mods].sort((a, b) => a - b));
    const row = await groupRow(id);
    expect(row.can_manage_group_id).toBe(mods);
    expect(row.can_mention_group_id).toBe(await systemGroup("role:nobody"));
    expect(row.can_join_group_id).toBe(await systemGroup("role:members"));
    const anon = await groupRow(row.can_add_members_group_id!);
    expect(anon.name).toBeNull();
    expect(await members(anon.id)).toEqual([other.id]);
    expect(await subgroupsOf(anon.id)).toEqual([sub]);
    expect(groupEvents().map((e) => e.event.op)).toEqual(["add", "add_subgroups"]);
    expect((groupEvents()[0].event.group as Record<string, unknown>).direct_subgroup_ids).toEqual([]);
    expect((groupEvents()[0].event.group as Record<string, unknown>).can_add_members_group).toEqual({ direct_members: [other.id], direct_subgroups: [sub] });
    expect(groupEvents()[1].event).toEqual({ type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: [sub, mods].sort((a, b) => a - b) });
  });

  it("is refused to guests, bots and users outside can_create_groups, before parameters", async () => {
    const { guest, bot, member, moderator } = s.realm;
    await expectRefused(s.api.post(guest, "/user_groups/create", { name: "x", description: "", members: [] }), "Not allowed for guest users");
    await expectRefused(s.api.post(bot, "/user_groups/create", { name: "x", description: "", members: [] }), "This endpoint does not accept bot requests.");
    await s.db.updateTable("realms").set({ can_create_groups_group_id: await systemGroup("role:moderators") }).where("id", "=", realmId()).execute();
    try {
      await expectRefused(s.api.post(member, "/user_groups/create", {}), "Insufficient permission");
      await createGroup(moderator);
      // A setting of role:everyone still excludes guests (upstream allow_everyone_group=False).
      await s.db.updateTable("realms").set({ can_create_groups_group_id: await systemGroup("role:everyone") }).where("id", "=", realmId()).execute();
      await createGroup(member);
    } finally {
      await s.db.updateTable("realms").set({ can_create_groups_group_id: await systemGroup("role:members") }).where("id", "=", realmId()).execute();
    }
  });

  it("checks parameters, members, the name, each setting and the subgroups in upstream's order", async () => {
    const { member, other, owner } = s.realm;
    const post = (params: Params) => s.api.post(member, "/user_groups/create", { name: "checked", description: "d", members: [], ...params });
    await expectRefused(s.api.post(member, "/user_groups/create", { name: "n", members: [] }), "Missing 'description' argument", { code: "REQUEST_VARIABLE_MISSING" });
    await expectRefused(s.api.post(member, "/user_groups/create", { name: "n", description: "" }), "Missing 'members' argument", { code: "REQUEST_VARIABLE_MISSING" });
    await expectRefused(post({ members: "x" }), "members is not valid JSON");
    await expectRefused(post({ members: [9999], name: "" }), "Invalid user ID: 9999");
    await expectRefused(post({ members: [s.other.member.id] }), `Invalid user ID: ${s.other.member.id}`);
    await expectRefused(post({ members: [s.realm.realm.notification_bot_id] }), `Invalid user ID: ${s.realm.realm.notification_bot_id}`);
    await expectRefused(post({ name: "   " }), "User group name can't be empty!");
    await expectRefused(post({ name: "x".repeat(101) }), "User group name cannot exceed 100 characters.");
    for (const prefix of ["@", "role:", "user:", "stream:", "channel:"]) {
      await expectRefused(post({ name: `${prefix}team` }), `User group name cannot start with '${prefix}'.`);
    }
    const internet = await systemGroup("role:internet");
    const everyone = await systemGroup("role:everyone");
    const owners = await systemGroup("role:owners");
    for (const setting of ["can_add_members_group", "can_join_group", "can_leave_group", "can_manage_group", "can_mention_group", "can_remove_members_group"]) {
      await expectRefused(post({ [setting]: internet }), `'${setting}' setting cannot be set to 'role:internet' group.`);
      await expectRefused(post({ [setting]: 999999 }), "Invalid user group");
    }
    for (const setting of ["can_add_members_group", "can_join_group", "can_manage_group", "can_remove_members_group"]) {
      await expectRefused(post({ [setting]: everyone }), `'${setting}' setting cannot be set to 'role:everyone' group.`);
    }
    // The spec forbids role:owners for can_mention_group.
    await expectRefused(post({ can_mention_group: owners }), "'can_mention_group' setting cannot be set to 'role:owners' group.");
    await expectRefused(post({ can_mention_group: { direct_members: [9999], direct_subgroups: [] } }), "Invalid user ID: 9999");
    await expectRefused(post({ can_mention_group: { direct_members: [other.id], direct_subgroups: [9999] } }), "Invalid user group ID: 9999");
    // Another organization's group, and anonymous groups, are no setting values.
    await expectRefused(post({ can_mention_group: await systemGroup("role:members", s.other.realm.id) }), "Invalid user group");
    const anonymous = (await groupRow(await createGroup(member))).can_manage_group_id!;
    await expectRefused(post({ can_mention_group: anonymous }), "Invalid user group");
    // Settings are checked in upstream's order, before the duplicate name.
    await createGroup(member, { name: "taken" });
    await expectRefused(post({ name: "taken", can_join_group: internet, can_mention_group: 999999 }), "'can_join_group' setting cannot be set to 'role:internet' group.");
    await expectRefused(post({ name: "taken" }), "User group 'taken' already exists.");
    // Subgroups are checked after the group is made: the whole request rolls back.
    await expectRefused(post({ subgroups: [9999] }), "Invalid user group ID: 9999");
    await expectRefused(post({ subgroups: [anonymous] }), `Invalid user group ID: ${anonymous}`);
    // The same name in another organization is fine.
    expectSuccess(await s.api.post(s.other.member, "/user_groups/create", { name: "taken", description: "", members: [] }));
    void owner;
  });

  it("refuses deactivated users and deactivated groups", async () => {
    const { member, owner } = s.realm;
    const gone = await s.api.post(owner, "/users", { email: "gone@example.com", password: "long-enough-pw", full_name: "Gone User" });
    const goneId = expectSuccess(gone).user_id;
    expectSuccess(await s.api.delete(owner, `/users/${goneId}`));
    const post = (params: Params) => s.api.post(member, "/user_groups/create", { name: "with-gone", description: "d", members: [], ...params });
    await expectRefused(post({ members: [goneId] }), `Invalid user ID: ${goneId}`);
    await expectRefused(post({ can_manage_group: { direct_members: [goneId, member.id], direct_subgroups: [] } }), `Invalid user ID: ${goneId}`);
    const old = await createGroup(member);
    expectSuccess(await s.api.post(member, `/user_groups/${old}/deactivate`));
    await expectRefused(post({ can_mention_group: old }), "User group is deactivated.");
    await expectRefused(post({ subgroups: [old] }), "User group is deactivated.");
  });
});

describe("POST /user_groups/{id}/members (4.15)", () => {
  it("adds and removes members, telling each added or removed human through the notification bot", async () => {
    const { member, other, moderator, bot } = s.realm;
    const id = await createGroup(member, { name: "crew" });
    published = [];
    expectSuccess(await updateMembers(member, id, { add: [other.id, member.id, bot.id] }));
    expect(await members(id)).toEqual([member.id, other.id, bot.id].sort((a, b) => a - b));
    const [ev] = groupEvents();
    expect(ev.event).toEqual({ type: "user_group", op: "add_members", group_id: id, user_ids: [member.id, other.id, bot.id].sort((a, b) => a - b) });
    expect([...ev.userIds].sort((a, b) => a - b)).toEqual(allActiveIds());
    // Only `other` hears of it: not the acting user, not the bot.
    const notices = [...new Map(published.filter((p) => p.event.type === "message").map((p) => [(p.event.message as any).id, p.event.message as Record<string, any>])).values()];
    expect(notices.map((m) => [m.display_recipient.map((r: any) => r.id).sort(), m.content])).toEqual([
      [[other.id, s.realm.realm.notification_bot_id].sort(), `<p><span class="user-mention silent" data-user-id="${member.id}">Mary Member</span> added you to the group <span class="user-group-mention silent" data-user-group-id="${id}">crew</span>.</p>`],
    ]);
    published = [];
    expectSuccess(await updateMembers(member, id, { delete: [other.id] }));
    expect(await members(id)).toEqual([member.id, bot.id].sort((a, b) => a - b));
    expect(groupEvents().map((e) => e.event)).toEqual([{ type: "user_group", op: "remove_members", group_id: id, user_ids: [other.id] }]);
    const removed = [...new Set(published.filter((p) => p.event.type === "message").map((p) => (p.event.message as any).content))];
    expect(removed).toEqual([`<p><span class="user-mention silent" data-user-id="${member.id}">Mary Member</span> removed you from the group <span class="user-group-mention silent" data-user-group-id="${id}">crew</span>.</p>`]);
    void moderator;
  });

  it("needs something to do, an existing non-system group, and a member or administrator caller", async () => {
    const { member, other, guest, bot } = s.realm;
    const id = await createGroup(member);
    const nothing = 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".';
    await expectRefused(updateMembers(member, id, {}), nothing);
    await expectRefused(updateMembers(member, id, { add: [], delete: [] }), nothing);
    await expectRefused(updateMembers(guest, id, { add: [guest.id] }), "Not allowed for guest users");
    await expectRefused(updateMembers(bot, id, { add: [bot.id] }), "This endpoint does not accept bot requests.");
    await expectRefused(updateMembers(member, 999999, { add: [other.id] }), "Invalid user group");
    await expectRefused(updateMembers(member, await systemGroup("role:members", s.other.realm.id), { add: [other.id] }), "Invalid user group");
    const anonymous = (await groupRow(id)).can_manage_group_id!;
    await expectRefused(updateMembers(member, anonymous, { add: [other.id] }), "Invalid user group");
    // System groups follow roles; nobody edits them here, not even owners.
    await expectRefused(updateMembers(s.realm.owner, await systemGroup("role:moderators"), { add: [other.id] }), "Insufficient permission");
    await expectRefused(updateMembers(member, id, { add: "[1" }), "add is not valid JSON");
    await expectRefused(updateMembers(member, id, { delete: [true] }), "delete[0] is not an integer");
  });

  it("allows each operation only by the group-setting permission upstream checks", async () => {
    const { member, other, moderator, admin, owner } = s.realm;
    const id = await createGroup(member, { members: [moderator.id] });
    // Not a manager: can_add_members_group / can_join_group / can_remove_members_group are
    // the creator or role:nobody; can_leave_group is role:everyone.
    await expectRefused(updateMembers(other, id, { add: [other.id] }), "Insufficient permission");
    await expectRefused(updateMembers(other, id, { add: [admin.id] }), "Insufficient permission");
    await expectRefused(updateMembers(other, id, { delete: [moderator.id] }), "Insufficient permission");
    await expectRefused(updateMembers(admin, id, { add: [admin.id] }), "Insufficient permission");
    expectSuccess(await updateMembers(moderator, id, { delete: [moderator.id] }));
    // can_join_group lets a user add exactly themselves.
    await s.db.updateTable("user_groups").set({ can_join_group_id: await systemGroup("role:members") }).where("id", "=", id).execute();
    expectSuccess(await updateMembers(other, id, { add: [other.id] }));
    await expectRefused(updateMembers(admin, id, { add: [admin.id, moderator.id] }), "Insufficient permission");
    // can_leave_group: role:nobody stops leaving; can_remove_members_group allows it again.
    await s.db.updateTable("user_groups").set({ can_leave_group_id: await systemGroup("role:nobody") }).where("id", "=", id).execute();
    await expectRefused(updateMembers(other, id, { delete: [other.id] }), "Insufficient permission");
    await s.db.updateTable("user_groups").set({ can_remove_members_group_id: await systemGroup("role:members") }).where("id", "=", id).execute();
    expectSuccess(await updateMembers(other, id, { delete: [other.id] }));
    expectSuccess(await updateMembers(other, id, { add: [other.id] }));
    expectSuccess(await updateMembers(admin, id, { delete: [other.id] }));
    // can_add_members_group through nested groups: a named group whose subgroup holds the user.
    const inner = await createGroup(member, { members: [admin.id] });
    const outer = await createGroup(member, { subgroups: [inner] });
    await s.db.updateTable("user_groups").set({ can_add_members_group_id: outer }).where("id", "=", id).execute();
    expectSuccess(await updateMembers(admin, id, { add: [other.id, admin.id] }));
    await expectRefused(updateMembers(moderator, id, { add: [owner.id] }), "Insufficient permission");
    // The organization's can_manage_all_groups (role:owners by default) allows everything.
    expectSuccess(await updateMembers(owner, id, { add: [owner.id], delete: [other.id] }));
    await s.db.updateTable("realms").set({ can_manage_all_groups_group_id: await systemGroup("role:moderators") }).where("id", "=", realmId()).execute();
    try {
      expectSuccess(await updateMembers(moderator, id, { add: [moderator.id], delete: [owner.id] }));
    } finally {
      await s.db.updateTable("realms").set({ can_manage_all_groups_group_id: await systemGroup("role:owners") }).where("id", "=", realmId()).execute();
    }
    // can_manage_group allows everything too.
    await s.db.updateTable("user_groups").set({ can_manage_group_id: await systemGroup("role:members") }).where("id", "=", id).execute();
    expectSuccess(await updateMembers(other, id, { delete: [admin.id, moderator.id], add: [other.id] }));
    expect(await members(id)).toEqual([other.id]);
  });

  it("refuses unknown, deactivated, present or absent users; a failing part undoes the others", async () => {
    const { member, other, owner, admin } = s.realm;
    const id = await createGroup(member, { members: [member.id] });
    const gone = expectSuccess(await s.api.post(owner, "/users", { email: "gone2@example.com", password: "long-enough-pw", full_name: "Gone Two" })).user_id;
    expectSuccess(await updateMembers(member, id, { add: [gone] }));
    expectSuccess(await s.api.delete(owner, `/users/${gone}`));
    await expectRefused(updateMembers(member, id, { add: [9999] }), "Invalid user ID: 9999");
    await expectRefused(updateMembers(member, id, { add: [s.other.member.id] }), `Invalid user ID: ${s.other.member.id}`);
    await expectRefused(updateMembers(member, id, { add: [gone] }), `Invalid user ID: ${gone}`);
    await expectRefused(updateMembers(member, id, { delete: [gone] }), `Invalid user ID: ${gone}`);
    await expectRefused(updateMembers(member, id, { add: [other.id, member.id] }), `User ${member.id} is already a member of this group`);
    await expectRefused(updateMembers(member, id, { delete: [admin.id] }), `There is no member '${admin.id}' in this user group`);
    // The delete-only user check comes before the group lookup (upstream's order).
    await expectRefused(updateMembers(member, 999999, { delete: [9999] }), "Invalid user ID: 9999");
    // add succeeds, delete fails: nothing is kept, no event and no notice is sent.
    await expectRefused(updateMembers(member, id, { add: [other.id], delete: [admin.id] }), `There is no member '${admin.id}' in this user group`);
    await expectRefused(updateMembers(member, id, { add: [other.id], add_subgroups: [9999] }), "Invalid user group ID: 9999");
  });

  it("adds and removes subgroups with can_add_members_group and can_manage_group, refusing cycles", async () => {
    const { member, other, admin } = s.realm;
    const top = await createGroup(member);
    const mid = await createGroup(member);
    const leaf = await createGroup(member);
    published = [];
    expectSuccess(await updateMembers(member, top, { add_subgroups: [mid] }));
    expect(groupEvents().map((e) => e.event)).toEqual([{ type: "user_group", op: "add_subgroups", group_id: top, direct_subgroup_ids: [mid] }]);
    expectSuccess(await updateMembers(member, mid, { add_subgroups: [leaf] }));
    await expectRefused(updateMembers(member, leaf, { add_subgroups: [top] }), `User group ${leaf} is already a subgroup of one of the passed subgroups.`);
    await expectRefused(updateMembers(member, top, { add_subgroups: [top] }), `User group ${top} is already a subgroup of one of the passed subgroups.`);
    await expectRefused(updateMembers(member, top, { add_subgroups: [mid] }), `User group ${mid} is already a subgroup of this group.`);
    await expectRefused(updateMembers(member, top, { add_subgroups: [9999] }), "Invalid user group ID: 9999");
    await expectRefused(updateMembers(member, top, { delete_subgroups: [leaf] }), `User group ${leaf} is not a subgroup of this group.`);
    await expectRefused(updateMembers(member, top, { delete_subgroups: [9999] }), "Invalid user group ID: 9999");
    // Permissions: can_add_members_group adds subgroups; removing them needs can_manage_group.
    await expectRefused(updateMembers(other, top, { add_subgroups: [leaf] }), "Insufficient permission");
    await s.db.updateTable("user_groups").set({ can_add_members_group_id: await systemGroup("role:members") }).where("id", "=", top).execute();
    expectSuccess(await updateMembers(other, top, { add_subgroups: [leaf] }));
    await expectRefused(updateMembers(other, top, { delete_subgroups: [leaf] }), "Insufficient permission");
    published = [];
    expectSuccess(await updateMembers(member, top, { delete_subgroups: [leaf, mid] }));
    expect(await subgroupsOf(top)).toEqual([]);
    expect(groupEvents().map((e) => e.event)).toEqual([{ type: "user_group", op: "remove_subgroups", group_id: top, direct_subgroup_ids: [mid, leaf].sort((a, b) => a - b) }]);
    // A deactivated group is no subgroup.
    const dead = await createGroup(member);
    expectSuccess(await s.api.post(member, `/user_groups/${dead}/deactivate`));
    await expectRefused(updateMembers(member, top, { add_subgroups: [dead] }), "User group is deactivated.");
    // /subgroups does the same with add/delete.
    expectSuccess(await s.api.post(member, `/user_groups/${top}/subgroups`, { add: [leaf] }));
    expect(await subgroupsOf(top)).toEqual([leaf]);
    expectSuccess(await s.api.post(member, `/user_groups/${top}/subgroups`, { delete: [leaf] }));
    await expectRefused(s.api.post(member, `/user_groups/${top}/subgroups`, {}), 'Nothing to do. Specify at least one of "add" or "delete".');
    void admin;
  });

  it("changes members and subgroups of a deactivated group (feature level 391)", async () => {
    const { member, other } = s.realm;
    const id = await createGroup(member);
    const sub = await createGroup(member);
    expectSuccess(await s.api.post(member, `/user_groups/${id}/deactivate`));
    expectSuccess(await updateMembers(member, id, { add: [other.id], add_subgroups: [sub] }));
    expectSuccess(await updateMembers(member, id, { delete: [other.id], delete_subgroups: [sub] }));
    expect(await members(id)).toEqual([]);
  });
});

describe("reading groups", () => {
  it("GET /user_groups lists the realm's named groups, deactivated ones on request", async () => {
    const { member, other, guest, bot } = s.realm;
    const id = await createGroup(member, { members: [other.id] });
    const dead = await createGroup(member);
    expectSuccess(await s.api.post(member, `/user_groups/${dead}/deactivate`));
    const body = expectSuccess(await s.api.get(member, "/user_groups"));
    expect(Object.keys(body).sort()).toEqual(["msg", "result", "user_groups"]);
    const ids = body.user_groups.map((g: any) => g.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect(ids).toContain(id);
    expect(ids).not.toContain(dead);
    expect(ids).toContain(await systemGroup("role:owners"));
    const other_realm = await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.other.realm.id).execute();
    for (const g of other_realm) expect(ids).not.toContain(g.id);
    const record = body.user_groups.find((g: any) => g.id === id);
    expect(Object.keys(record).sort()).toEqual(
      ["can_add_members_group", "can_join_group", "can_leave_group", "can_manage_group", "can_mention_group", "can_remove_members_group", "creator_id", "date_created", "deactivated", "description", "direct_subgroup_ids", "id", "is_system_group", "members", "name"].sort(),
    );
    expect(record.members).toEqual([other.id]);
    // The same records as /register.
    const state = expectSuccess(await s.api.post(member, "/register", { event_types: ["realm_user_groups"] }));
    expect(state.realm_user_groups).toEqual(body.user_groups);
    const all = expectSuccess(await s.api.get(member, "/user_groups", { include_deactivated_groups: true }));
    expect(all.user_groups.find((g: any) => g.id === dead).deactivated).toBe(true);
    expectError(await s.api.get(guest, "/user_groups"), "Not allowed for guest users");
    expectError(await s.api.get(bot, "/user_groups"), "This endpoint does not accept bot requests.");
  });

  it("members, membership and subgroups, direct or through subgroups", async () => {
    const { member, other, admin, moderator, guest, bot, owner } = s.realm;
    const inner = await createGroup(member, { members: [admin.id] });
    const outer = await createGroup(member, { members: [other.id], subgroups: [inner] });
    const top = await createGroup(member, { members: [moderator.id], subgroups: [outer] });
    expect(expectSuccess(await s.api.get(member, `/user_groups/${top}/members`))).toEqual({ result: "success", msg: "", members: [moderator.id, other.id, admin.id].sort((a, b) => a - b) });
    expect(expectSuccess(await s.api.get(member, `/user_groups/${top}/members`, { direct_member_only: true })).members).toEqual([moderator.id]);
    expect(expectSuccess(await s.api.get(member, `/user_groups/${top}/subgroups`))).toEqual({ result: "success", msg: "", subgroups: [outer, inner].sort((a, b) => a - b) });
    expect(expectSuccess(await s.api.get(member, `/user_groups/${top}/subgroups`, { direct_subgroup_only: true })).subgroups).toEqual([outer]);
    expect(expectSuccess(await s.api.get(member, `/user_groups/${top}/members/${admin.id}`))).toEqual({ result: "success", msg: "", is_user_group_member: true });
    expect(expectSuccess(await s.api.get(member, `/user_groups/${top}/members/${admin.id}`, { direct_member_only: true })).is_user_group_member).toBe(false);
    expect(expectSuccess(await s.api.get(member, `/user_groups/${top}/members/${owner.id}`)).is_user_group_member).toBe(false);
    // System groups nest too: role:administrators holds the owners.
    expect(expectSuccess(await s.api.get(member, `/user_groups/${await systemGroup("role:administrators")}/members/${owner.id}`)).is_user_group_member).toBe(true);
    expectError(await s.api.get(member, `/user_groups/${top}/members/9999`), "No such user");
    expectError(await s.api.get(member, `/user_groups/${top}/members/${bot.id}`), "No such user");
    expectError(await s.api.get(member, `/user_groups/999999/members`), "Invalid user group");
    expectError(await s.api.get(member, `/user_groups/${await systemGroup("role:members", s.other.realm.id)}/subgroups`), "Invalid user group");
    expectError(await s.api.get(guest, `/user_groups/${top}/members`), "Not allowed for guest users");
    // A deactivated user is no member any more.
    const gone = expectSuccess(await s.api.post(owner, "/users", { email: "gone3@example.com", password: "long-enough-pw", full_name: "Gone Three" })).user_id;
    expectSuccess(await updateMembers(member, inner, { add: [gone] }));
    expectSuccess(await s.api.delete(owner, `/users/${gone}`));
    expect(expectSuccess(await s.api.get(member, `/user_groups/${top}/members`)).members).not.toContain(gone);
    expect(expectSuccess(await s.api.get(member, `/user_groups/${inner}/members`, { direct_member_only: true })).members).toEqual([admin.id]);
    // Deactivated groups cannot be read.
    expectSuccess(await s.api.post(owner, `/user_groups/${top}/deactivate`));
    expectError(await s.api.get(member, `/user_groups/${top}/members`), "User group is deactivated.");
  });

  it("answers membership checks with one recursive query whatever the nesting depth", async () => {
    const { member, admin } = s.realm;
    const chain = async (depth: number) => {
      let below = await createGroup(member, { members: [admin.id] });
      for (let i = 1; i < depth; i++) below = await createGroup(member, { subgroups: [below] });
      return below;
    };
    const shallow = await chain(1);
    const deep = await chain(6);
    const count = (id: number) => s.countQueries(async () => expectSuccess(await s.api.get(member, `/user_groups/${id}/members/${admin.id}`)));
    expect(await count(deep)).toBe(await count(shallow));
    expect(expectSuccess(await s.api.get(member, `/user_groups/${deep}/members/${admin.id}`)).is_user_group_member).toBe(true);
    // Permission checks too: can_add_members_group held through 1 or 6 levels of subgroups.
    const addCount = async (settingGroup: number) => {
      const target = await createGroup(member);
      await s.db.updateTable("user_groups").set({ can_add_members_group_id: settingGroup }).where("id", "=", target).execute();
      return s.countQueries(async () => expectSuccess(await updateMembers(admin, target, { add: [s.realm.moderator.id] })));
    };
    expect(await addCount(deep)).toBe(await addCount(shallow));
  });
});

describe("ids beyond 32 bits", () => {
  it("name nothing: the same answers as missing objects, never a database error", async () => {
    const { member } = s.realm;
    const big = 99999999999;
    await expectRefused(s.api.post(member, "/user_groups/create", { name: "big", description: "", members: [big] }), `Invalid user ID: ${big}`);
    await expectRefused(s.api.post(member, "/user_groups/create", { name: "big", description: "", members: [], can_mention_group: big }), "Invalid user group");
    await expectRefused(s.api.post(member, "/user_groups/create", { name: "big", description: "", members: [], subgroups: [big] }), `Invalid user group ID: ${big}`);
    await expectRefused(updateMembers(member, big, { add: [member.id] }), "Invalid user group");
    await expectRefused(updateMembers(member, big, { delete: [big] }), `Invalid user ID: ${big}`);
    await expectRefused(s.api.patch(member, `/user_groups/${big}`, { name: "z" }), "Invalid user group");
    await expectRefused(s.api.post(member, `/user_groups/${big}/deactivate`), "Invalid user group");
    expectError(await s.api.get(member, `/user_groups/${big}/subgroups`), "Invalid user group");
    const id = await createGroup(member);
    expectError(await s.api.get(member, `/user_groups/${id}/members/${big}`), "No such user");
  });
});

describe("PATCH /user_groups/{id}", () => {
  it("renames, describes and changes settings, one update event per change", async () => {
    const { member, other } = s.realm;
    const id = await createGroup(member, { name: "old-name" });
    const before = await groupRow(id);
    published = [];
    expectSuccess(
      await s.api.patch(member, `/user_groups/${id}`, {
        name: "new-name",
        description: "new description",
        can_mention_group: { new: await systemGroup("role:members"), old: await systemGroup("role:everyone") },
        can_manage_group: { new: { direct_members: [member.id, other.id], direct_subgroups: [] } },
      }),
    );
    const row = await groupRow(id);
    expect(row).toMatchObject({ name: "new-name", description: "new description", can_mention_group_id: await systemGroup("role:members") });
    // The anonymous value is updated in place.
    expect(row.can_manage_group_id).toBe(before.can_manage_group_id);
    expect(await members(row.can_manage_group_id!)).toEqual([member.id, other.id].sort((a, b) => a - b));
    expect(groupEvents().map((e) => e.event)).toEqual([
      { type: "user_group", op: "update", group_id: id, data: { name: "new-name" } },
      { type: "user_group", op: "update", group_id: id, data: { description: "new description" } },
      { type: "user_group", op: "update", group_id: id, data: { can_manage_group: { direct_members: [member.id, other.id].sort((a, b) => a - b), direct_subgroups: [] } } },
      { type: "user_group", op: "update", group_id: id, data: { can_mention_group: await systemGroup("role:members") } },
    ]);
    // A named value replacing an anonymous one removes the anonymous group.
    expectSuccess(await s.api.patch(member, `/user_groups/${id}`, { can_add_members_group: { new: await systemGroup("role:moderators") } }));
    expect(await s.db.selectFrom("user_groups").select("id").where("id", "=", before.can_add_members_group_id!).executeTakeFirst()).toBeUndefined();
    // Unchanged values send nothing.
    published = [];
    expectSuccess(await s.api.patch(member, `/user_groups/${id}`, { name: "new-name", can_join_group: { new: { direct_members: [], direct_subgroups: [] } } }));
    expect(groupEvents()).toEqual([]);
  });

  it("refuses without data, without can_manage_group, on a clash or a stale old value", async () => {
    const { member, other, guest } = s.realm;
    const id = await createGroup(member);
    await createGroup(member, { name: "clash" });
    await expectRefused(s.api.patch(member, `/user_groups/${id}`, {}), "No new data supplied");
    await expectRefused(s.api.patch(guest, `/user_groups/${id}`, { name: "x" }), "Not allowed for guest users");
    await expectRefused(s.api.patch(other, `/user_groups/${id}`, { name: "x" }), "Insufficient permission");
    await expectRefused(s.api.patch(member, `/user_groups/999999`, { name: "x" }), "Invalid user group");
    await expectRefused(s.api.patch(s.realm.owner, `/user_groups/${await systemGroup("role:members")}`, { name: "x" }), "Insufficient permission");
    await expectRefused(s.api.patch(member, `/user_groups/${id}`, { name: "clash" }), "User group 'clash' already exists.");
    await expectRefused(s.api.patch(member, `/user_groups/${id}`, { name: "role:x" }), "User group name cannot start with 'role:'.");
    await expectRefused(
      s.api.patch(member, `/user_groups/${id}`, { description: "changed", can_mention_group: { new: await systemGroup("role:members"), old: await systemGroup("role:nobody") } }),
      "'old' value does not match the expected value.",
      { code: "EXPECTATION_MISMATCH" },
    );
    await expectRefused(s.api.patch(member, `/user_groups/${id}`, { can_manage_group: { new: await systemGroup("role:everyone") } }), "'can_manage_group' setting cannot be set to 'role:everyone' group.");
    await expectRefused(s.api.patch(member, `/user_groups/${id}`, { can_manage_group: 5 }), "can_manage_group is not a dict");
  });
});

describe("POST /user_groups/{id}/deactivate", () => {
  it("deactivates an unused group; managers only; refused while the group is in use", async () => {
    const { member, other, owner } = s.realm;
    const id = await createGroup(member);
    await expectRefused(s.api.post(other, `/user_groups/${id}/deactivate`), "Insufficient permission");
    await expectRefused(s.api.post(owner, `/user_groups/${await systemGroup("role:members")}/deactivate`), "Insufficient permission");
    const parent = await createGroup(member, { subgroups: [id] });
    const user = await createGroup(member, { can_mention_group: id, can_join_group: { direct_members: [other.id], direct_subgroups: [id] } });
    await s.db.updateTable("realms").set({ can_invite_users_group_id: id }).where("id", "=", realmId()).execute();
    const body = await expectRefused(s.api.post(member, `/user_groups/${id}/deactivate`), "Cannot deactivate user group in use.", { code: "CANNOT_DEACTIVATE_GROUP_IN_USE" });
    expect(body.objections).toEqual([
      { type: "subgroup", supergroup_ids: [parent] },
      { type: "user_group", group_id: user, settings: ["can_join_group", "can_mention_group"] },
      { type: "realm", settings: ["can_invite_users_group"] },
    ]);
    await s.db.updateTable("realms").set({ can_invite_users_group_id: await systemGroup("role:members") }).where("id", "=", realmId()).execute();
    expectSuccess(await s.api.patch(member, `/user_groups/${user}`, { can_mention_group: { new: await systemGroup("role:everyone") }, can_join_group: { new: await systemGroup("role:nobody") } }));
    expectSuccess(await s.api.post(member, `/user_groups/${parent}/deactivate`));
    published = [];
    expectSuccess(await s.api.post(member, `/user_groups/${id}/deactivate`));
    expect((await groupRow(id)).deactivated).toBe(1);
    expect(groupEvents().map((e) => e.event)).toEqual([
      { type: "user_group", op: "update", group_id: id, data: { deactivated: true }, internal_data: { include_deactivated_groups: true } },
      { type: "user_group", op: "remove", group_id: id, internal_data: { include_deactivated_groups: false } },
    ]);
    await expectRefused(s.api.post(member, `/user_groups/${id}/deactivate`), "User group is deactivated.");
    // Reactivation through PATCH.
    expectSuccess(await s.api.patch(member, `/user_groups/${id}`, { deactivated: false }));
    expect((await groupRow(id)).deactivated).toBe(0);
  });
});

describe("group mentions", () => {
  it("render, flag the members of nested groups, and honour can_mention_group", async () => {
    const { member, other, admin, moderator, owner } = s.realm;
    expectSuccess(await s.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "team-room" }], principals: [owner.id, member.id, other.id, admin.id, moderator.id] }));
    const inner = await createGroup(member, { name: "inner-team", members: [admin.id] });
    const outer = await createGroup(member, { name: "outer-team", members: [other.id], subgroups: [inner] });
    const sent = expectSuccess(await s.api.post(member, "/messages", { type: "stream", to: "team-room", topic: "t", content: "hi @*outer-team* and @_*inner-team*" }));
    const row = await s.db.selectFrom("messages").select("rendered_content").where("id", "=", sent.id).executeTakeFirstOrThrow();
    expect(row.rendered_content).toBe(
      `<p>hi <span class="user-group-mention" data-user-group-id="${outer}">@outer-team</span> and <span class="user-group-mention silent" data-user-group-id="${inner}">inner-team</span></p>`,
    );
    const flags = new Map((await s.db.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", sent.id).execute()).map((r) => [r.user_id, r.flags]));
    expect(flags.get(other.id)! & 8).toBe(8);
    expect(flags.get(admin.id)! & 8).toBe(8);
    expect(flags.get(moderator.id)! & 8).toBe(0);
    // A silent mention alone flags nobody.
    const silent = expectSuccess(await s.api.post(member, "/messages", { type: "stream", to: "team-room", topic: "t", content: "@_*inner-team*" }));
    const silentFlags = await s.db.selectFrom("user_messages").select("flags").where("message_id", "=", silent.id).where("user_id", "=", admin.id).executeTakeFirstOrThrow();
    expect(silentFlags.flags & 8).toBe(0);
    // can_mention_group: only moderators may mention the group now.
    expectSuccess(await s.api.patch(member, `/user_groups/${outer}`, { can_mention_group: { new: await systemGroup("role:moderators") } }));
    expectError(await s.api.post(other, "/messages", { type: "stream", to: "team-room", topic: "t", content: "@*outer-team*" }), "You are not allowed to mention user group 'outer-team'.");
    expectSuccess(await s.api.post(moderator, "/messages", { type: "stream", to: "team-room", topic: "t", content: "@*outer-team*" }));
    // Deactivated groups are not mentions.
    expectSuccess(await s.api.patch(member, `/user_groups/${outer}`, { can_mention_group: { new: await systemGroup("role:everyone") } }));
    expectSuccess(await s.api.post(member, `/user_groups/${outer}/deactivate`));
    const dead = expectSuccess(await s.api.post(member, "/messages", { type: "stream", to: "team-room", topic: "t", content: "@*outer-team*" }));
    const deadRow = await s.db.selectFrom("messages").select("rendered_content").where("id", "=", dead.id).executeTakeFirstOrThrow();
    expect(deadRow.rendered_content).toBe("<p>@<em>outer-team</em></p>");
  });
});
