/** realm_user_groups and group-valued realm settings in /register, and their upkeep. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { register, verifyAction } from "../support/events.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

// "realm_user_groups" names the state; "user_group" is the event type that keeps it current (as upstream).
const PARAMS = { event_types: ["realm_user", "realm_user_groups", "user_group", "realm"] };

describe("realm_user_groups", () => {
  it("lists the system groups with direct members, subgroups and group-setting values", async () => {
    const { realm_user_groups: groups } = await register(s, s.realm.member, { event_types: ["realm_user_groups"] });
    const byName = new Map(groups.map((g: any) => [g.name, g]));
    const nobody = byName.get("role:nobody") as any;
    const members = byName.get("role:members") as any;
    expect(members).toEqual({
      id: expect.any(Number),
      name: "role:members",
      description: "Members of this organization, not including guests",
      members: expect.arrayContaining([s.realm.member.id, s.realm.other.id]),
      direct_subgroup_ids: [(byName.get("role:fullmembers") as any).id],
      is_system_group: true,
      creator_id: null,
      date_created: expect.any(Number),
      deactivated: false,
      can_add_members_group: nobody.id,
      can_join_group: nobody.id,
      can_leave_group: nobody.id,
      can_manage_group: nobody.id,
      can_mention_group: nobody.id,
      can_remove_members_group: nobody.id,
    });
    expect(members.members).not.toContain(s.realm.guest.id);
    expect(groups.map((g: any) => g.id)).toEqual([...groups.map((g: any) => g.id)].sort((a: number, b: number) => a - b));
    // Only this realm's groups.
    const otherRealm = await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.other.realm.id).execute();
    for (const { id } of otherRealm) expect(groups.map((g: any) => g.id)).not.toContain(id);
  });

  it("realm permission settings: named groups by id, anonymous groups by contents", async () => {
    const { realm } = s.realm;
    const admins = await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", realm.id).where("name", "=", "role:administrators").executeTakeFirstOrThrow();
    const { id: anon } = await s.db
      .insertInto("user_groups")
      .values({ realm_id: realm.id, name: null, date_created: 0 })
      .returning("id")
      .executeTakeFirstOrThrow();
    await s.db.insertInto("user_group_members").values({ realm_id: realm.id, group_id: anon, user_id: s.realm.member.id }).execute();
    await s.db.insertInto("user_group_subgroups").values({ realm_id: realm.id, supergroup_id: anon, subgroup_id: admins.id }).execute();
    await s.db.updateTable("realms").set({ can_create_groups_group_id: anon }).where("id", "=", realm.id).execute();
    const state = await register(s, s.realm.member, { event_types: ["realm", "realm_user_groups"] });
    expect(state.realm_can_create_groups).toEqual({ direct_members: [s.realm.member.id], direct_subgroups: [admins.id] });
    expect(state.realm_can_delete_any_message_group).toBe(admins.id);
    // Anonymous groups are not listed.
    expect(state.realm_user_groups.map((g: any) => g.id)).not.toContain(anon);
  });

  it("system-group memberships follow new users and role changes", async () => {
    await verifyAction(s, s.realm.member, async () => expectSuccess(await s.api.patch(s.realm.owner, `/users/${s.realm.other.id}`, { role: 300 })), PARAMS);
    await verifyAction(s, s.realm.member, async () => expectSuccess(await s.api.patch(s.realm.owner, `/users/${s.realm.other.id}`, { role: 400 })), PARAMS);
    await verifyAction(
      s,
      s.realm.member,
      async () => expectSuccess(await s.api.post(s.realm.owner, "/users", { email: "grouped@example.com", password: "pw-long-enough", full_name: "Grouped Person" })),
      PARAMS,
    );
  });
});

describe("user_group events", () => {
  const GROUP_PARAMS = { event_types: ["user_group", "realm_user_groups"] };
  const WITH_DEACTIVATED = { ...GROUP_PARAMS, client_capabilities: { notification_settings_null: true, include_deactivated_groups: true } };
  const systemGroup = async (name: string) =>
    (await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", name).executeTakeFirstOrThrow()).id;
  let n = 0;
  const create = async (params: Record<string, unknown> = {}) =>
    expectSuccess(await s.api.post(s.realm.member, "/user_groups/create", { name: `ev-${++n}`, description: "d", members: [], ...params })).group_id as number;

  it("keep realm_user_groups current through create, membership, subgroups and settings", async () => {
    const { member, other, admin } = s.realm;
    for (const params of [GROUP_PARAMS, WITH_DEACTIVATED]) {
      const sub = await create({ members: [admin.id] });
      let id = 0;
      const events = await verifyAction(s, other, async () => {
        id = await create({ members: [other.id], subgroups: [sub], can_join_group: { direct_members: [admin.id], direct_subgroups: [sub] } });
      }, params);
      expect(events.map((e) => e.op)).toEqual(["add", "add_subgroups"]);
      await verifyAction(s, other, async () => expectSuccess(await s.api.post(member, `/user_groups/${id}/members`, { add: [admin.id, member.id], delete: [other.id], delete_subgroups: [sub] })), params);
      await verifyAction(s, other, async () => expectSuccess(await s.api.post(member, `/user_groups/${id}/subgroups`, { add: [sub] })), params);
      await verifyAction(
        s,
        other,
        async () =>
          expectSuccess(
            await s.api.patch(member, `/user_groups/${id}`, {
              name: `renamed-${id}`,
              description: "new",
              can_join_group: { new: { direct_members: [other.id], direct_subgroups: [] } },
              can_mention_group: { new: await systemGroup("role:members") },
            }),
          ),
        params,
      );
    }
  });

  it("deactivated users leave named groups' members; reactivation brings them back with add_members", async () => {
    const { member, owner } = s.realm;
    const user = expectSuccess(await s.api.post(owner, "/users", { email: "grp-react@example.com", password: "long-enough-pw", full_name: "Group Return" })).user_id as number;
    const id = await create({ members: [user, member.id] });
    const params = { event_types: ["realm_user", "user_group", "realm_user_groups"] };
    await verifyAction(s, member, async () => expectSuccess(await s.api.delete(owner, `/users/${user}`)), params);
    const groups = expectSuccess(await s.api.get(member, "/user_groups")).user_groups;
    expect(groups.find((g: any) => g.id === id).members).toEqual([member.id]);
    const back = await verifyAction(s, member, async () => expectSuccess(await s.api.post(owner, `/users/${user}/reactivate`)), params);
    expect(back.filter((e) => e.type === "user_group").map((e) => e.group_id)).toContain(id);
  });

  it("deactivation and reactivation: update for clients that know deactivated groups, remove and add for the others", async () => {
    const { member, other } = s.realm;
    for (const params of [GROUP_PARAMS, WITH_DEACTIVATED]) {
      const id = await create({ members: [other.id] });
      const off = await verifyAction(s, other, async () => expectSuccess(await s.api.post(member, `/user_groups/${id}/deactivate`)), params);
      const known = params === WITH_DEACTIVATED;
      expect(off.map((e) => ({ ...e, id: undefined }))).toEqual([
        known ? { type: "user_group", op: "update", group_id: id, data: { deactivated: true }, id: undefined } : { type: "user_group", op: "remove", group_id: id, id: undefined },
      ]);
      // Renaming a deactivated group is news only to clients that list it.
      const renamed = await verifyAction(s, other, async () => expectSuccess(await s.api.patch(member, `/user_groups/${id}`, { name: `dead-${id}` })), params);
      expect(renamed).toHaveLength(known ? 1 : 0);
      await verifyAction(s, other, async () => expectSuccess(await s.api.post(member, `/user_groups/${id}/members`, { delete: [other.id] })), params);
      const on = await verifyAction(s, other, async () => expectSuccess(await s.api.patch(member, `/user_groups/${id}`, { deactivated: false })), params);
      expect(on.map((e) => e.op)).toEqual([known ? "update" : "add"]);
    }
  });
});

describe("realm_emoji", () => {
  it("is an object keyed by emoji id (none yet)", async () => {
    expect((await register(s, s.realm.member, { event_types: ["realm_emoji"] })).realm_emoji).toEqual({});
  });
});
