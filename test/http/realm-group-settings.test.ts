import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import { REALM_GROUP_SETTINGS } from "../../src/lib/realm-group-settings.js";
import { REALM_GROUP_SETTING_DEFAULTS } from "../../src/lib/system-groups.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let team: number;

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  team = expectSuccess(await s.api.post(s.realm.owner, "/user_groups/create", { name: "team", description: "d", members: [s.realm.member.id] })).group_id;
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const realmRow = () => s.db.selectFrom("realms").selectAll().where("id", "=", s.realm.realm.id).executeTakeFirstOrThrow();
const patch = (user: TestServer["realm"]["owner"], params: Record<string, unknown>) => s.api.patch(user, "/realm", params);

async function systemGroup(name: string): Promise<number> {
  return (await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", name).executeTakeFirstOrThrow()).id;
}

/** The realm row and every group row and membership: what a failed request must leave alone. */
async function snapshot() {
  return {
    realm: await realmRow(),
    groups: await s.db.selectFrom("user_groups").selectAll().orderBy("id").execute(),
    members: await s.db.selectFrom("user_group_members").selectAll().orderBy("group_id").orderBy("user_id").execute(),
    edges: await s.db.selectFrom("user_group_subgroups").selectAll().orderBy("supergroup_id").orderBy("subgroup_id").execute(),
  };
}

describe("PATCH /realm group-valued settings", () => {
  it("covers every group setting the realm stores", () => {
    expect(Object.values(REALM_GROUP_SETTINGS).map((g) => g.column).sort()).toEqual(Object.keys(REALM_GROUP_SETTING_DEFAULTS).sort());
  });

  it("a named group: {new} (and a matching old), update_dict to every active user, a second time changes nothing", async () => {
    const admins = await systemGroup("role:administrators");
    const members = await systemGroup("role:members");
    const body = expectSuccess(await patch(s.realm.owner, { can_create_groups: JSON.stringify({ new: admins, old: members }) }));
    expect(body).toEqual({ result: "success", msg: "", can_create_groups: admins });
    expect((await realmRow()).can_create_groups_group_id).toBe(admins);
    expect(published.map((p) => p.event)).toEqual([{ type: "realm", op: "update_dict", property: "default", data: { can_create_groups: admins } }]);
    expect(published[0].userIds).toEqual(expect.arrayContaining([s.realm.member.id, s.realm.guest.id]));
    expect(published[0].userIds).not.toContain(s.other.owner.id);
    published = [];
    expect(expectSuccess(await patch(s.realm.owner, { can_create_groups: JSON.stringify({ new: admins }) }))).toEqual({ result: "success", msg: "" });
    expect(published).toEqual([]);
  });

  it("an anonymous value is stored as its own group, updated in place, and removed when a named group replaces it", async () => {
    const { admin, member, moderator } = s.realm;
    const value = { direct_members: [member.id], direct_subgroups: [team] };
    expect(expectSuccess(await patch(admin, { can_delete_any_message_group: JSON.stringify({ new: value }) }))).toEqual({ result: "success", msg: "", can_delete_any_message_group: value });
    const anonymousId = (await realmRow()).can_delete_any_message_group_id!;
    expect((await s.db.selectFrom("user_groups").select("name").where("id", "=", anonymousId).executeTakeFirstOrThrow()).name).toBeNull();
    expect(published.map((p) => p.event)).toEqual([{ type: "realm", op: "update_dict", property: "default", data: { can_delete_any_message_group: value } }]);
    const state = expectSuccess(await s.api.post(member, "/register", { fetch_event_types: ["realm"] }));
    expect(state.realm_can_delete_any_message_group).toEqual(value);

    const next = { direct_members: [moderator.id, member.id], direct_subgroups: [] };
    expectSuccess(await patch(admin, { can_delete_any_message_group: JSON.stringify({ new: next, old: value }) }));
    expect((await realmRow()).can_delete_any_message_group_id).toBe(anonymousId);
    expect(published.at(-1)!.event).toEqual({ type: "realm", op: "update_dict", property: "default", data: { can_delete_any_message_group: { direct_members: [member.id, moderator.id].sort((a, b) => a - b), direct_subgroups: [] } } });

    // One subgroup and no members is that group; nothing is the nobody group.
    expectSuccess(await patch(admin, { can_delete_any_message_group: JSON.stringify({ new: { direct_members: [], direct_subgroups: [team] } }) }));
    expect((await realmRow()).can_delete_any_message_group_id).toBe(team);
    expect(await s.db.selectFrom("user_groups").select("id").where("id", "=", anonymousId).executeTakeFirst()).toBeUndefined();
    expectSuccess(await patch(admin, { can_delete_any_message_group: JSON.stringify({ new: { direct_members: [], direct_subgroups: [] } }) }));
    expect((await realmRow()).can_delete_any_message_group_id).toBe(await systemGroup("role:nobody"));
    expectSuccess(await patch(admin, { can_delete_any_message_group: JSON.stringify({ new: await systemGroup("role:administrators") }) }));
  });

  it("owners only for can_create_groups, can_invite_users_group and can_manage_all_groups; administrators for the rest", async () => {
    const before = await snapshot();
    const admins = await systemGroup("role:administrators");
    for (const name of ["can_create_groups", "can_invite_users_group", "can_manage_all_groups"]) {
      expectError(await patch(s.realm.admin, { [name]: JSON.stringify({ new: admins }) }), "Must be an organization owner", { code: "UNAUTHORIZED_PRINCIPAL" });
    }
    expectError(await patch(s.realm.member, { can_resolve_topics_group: JSON.stringify({ new: admins }) }), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expect(await snapshot()).toEqual(before);
    expect(published).toEqual([]);
    expectSuccess(await patch(s.realm.admin, { can_resolve_topics_group: JSON.stringify({ new: admins }) }));
    expect((await realmRow()).can_resolve_topics_group_id).toBe(admins);
    expectSuccess(await patch(s.realm.admin, { can_resolve_topics_group: JSON.stringify({ new: await systemGroup("role:everyone") }) }));
  });

  it("each setting's allowed groups, unknown groups, a stale old value and bad shapes are refused and change nothing", async () => {
    const { owner } = s.realm;
    const before = await snapshot();
    const sys = async (name: string) => JSON.stringify({ new: await systemGroup(name) });
    expectError(await patch(owner, { can_delete_any_message_group: await sys("role:everyone") }), "'can_delete_any_message_group' setting cannot be set to 'role:everyone' group.");
    expectError(await patch(owner, { can_resolve_topics_group: await sys("role:internet") }), "'can_resolve_topics_group' setting cannot be set to 'role:internet' group.");
    expectError(await patch(owner, { can_manage_all_groups: await sys("role:nobody") }), "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.");
    expectError(await patch(owner, { can_access_all_users_group: await sys("role:nobody") }), "'can_access_all_users_group' setting cannot be set to 'role:nobody' group.");
    expectError(await patch(owner, { can_access_all_users_group: await sys("role:administrators") }), "'can_access_all_users_group' setting cannot be set to 'role:administrators' group.");
    expectError(await patch(owner, { can_create_web_public_channel_group: await sys("role:members") }), "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.");
    expectError(await patch(owner, { can_create_web_public_channel_group: JSON.stringify({ new: team }) }), "'can_create_web_public_channel_group' must be a system user group.");
    expectError(
      await patch(owner, { can_access_all_users_group: JSON.stringify({ new: { direct_members: [owner.id], direct_subgroups: [] } }) }),
      "'can_access_all_users_group' must be a system user group.",
    );
    expectError(await patch(owner, { can_add_subscribers_group: JSON.stringify({ new: 999999 }) }), "Invalid user group");
    expectError(await patch(owner, { can_add_subscribers_group: JSON.stringify({ new: { direct_members: [999999], direct_subgroups: [] } }) }), "Invalid user ID: 999999");
    expectError(await patch(owner, { can_add_subscribers_group: JSON.stringify({ new: { direct_members: [owner.id], direct_subgroups: [999999] } }) }), "Invalid user group ID: 999999");
    expectError(await patch(owner, { can_add_subscribers_group: JSON.stringify({ new: team, old: team }) }), "'old' value does not match the expected value.", { code: "EXPECTATION_MISMATCH" });
    expectError(await patch(owner, { can_add_subscribers_group: "5" }), "can_add_subscribers_group is not a dict");
    expectError(await patch(owner, { can_add_subscribers_group: JSON.stringify({ old: team }) }), "new key is missing from can_add_subscribers_group");
    // A bad group value after good plain settings refuses the whole request.
    expectError(await patch(owner, { name: "Changed", invite_required: true, can_add_subscribers_group: JSON.stringify({ new: 999999 }) }), "Invalid user group");
    expect(await snapshot()).toEqual(before);
    expect(published).toEqual([]);
  });
});
