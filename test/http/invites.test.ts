import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { Channel } from "../../src/db/schema.js";
import { listOutbox, readOutboxMessage } from "../../src/mail/outbox.js";
import { Role } from "../../src/lib/roles.js";
import { systemGroupIds } from "../../src/db/queries/user-groups.js";

let s: TestServer;
let dataDir: string;
let events: PublishedEvent[] = [];
let publicRoom: Channel;
let privateRoom: Channel;
let groups: Map<string, number>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "parley-invites-"));
  s = await startTestServer({ dataDir });
  s.ctx.events.subscribe((e) => events.push(e));
  publicRoom = await createChannel(s, { name: "lobby", subscribers: [s.realm.member] });
  privateRoom = await createChannel(s, { name: "secret", invite_only: true, subscribers: [s.realm.owner] });
  groups = await systemGroupIds(s.db, s.realm.realm.id);
});
afterAll(async () => {
  await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(() => {
  events = [];
});

const inviteRows = () => s.db.selectFrom("invites").selectAll().orderBy("id").execute();
const snapshot = async () => ({ invites: await inviteRows(), sends: await s.db.selectFrom("invite_sends").selectAll().execute(), mail: (await listOutbox(dataDir)).length });
const sorted = (ids: readonly number[]) => [...ids].sort((a, b) => a - b);
const adminsAnd = (...ids: number[]) => sorted([...new Set([s.realm.owner.id, s.realm.admin.id, ...ids])]);
const invitesChanged = () => events.filter((e) => e.event.type === "invites_changed");

async function makeGroup(name: string, opts: { system?: boolean; deactivated?: boolean; canAddMembers?: number | null } = {}): Promise<number> {
  const row = await s.db
    .insertInto("user_groups")
    .values({
      realm_id: s.realm.realm.id,
      name,
      description: "",
      is_system_group: opts.system ? 1 : 0,
      deactivated: opts.deactivated ? 1 : 0,
      date_created: 0,
      can_manage_group_id: groups.get("role:nobody")!,
      can_add_members_group_id: opts.canAddMembers ?? groups.get("role:nobody")!,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

describe("POST /invites", () => {
  it("invites each address, mails the link and tells administrators and the referrer", async () => {
    const body = expectSuccess(
      await s.api.post(s.realm.member, "/invites", { invitee_emails: "new1@example.com, Newt Two <new2@example.com>\nnew1@example.com", stream_ids: [publicRoom.id] }),
    );
    expect(body).toEqual({ result: "success", msg: "" });
    const rows = (await inviteRows()).filter((r) => r.email.startsWith("new"));
    expect(rows.map((r) => r.email).sort()).toEqual(["new1@example.com", "new2@example.com"]);
    for (const r of rows) {
      expect(r).toMatchObject({
        referrer_id: s.realm.member.id,
        invited_as: Role.MEMBER,
        status: 0,
        notify_referrer_on_join: 1,
        include_realm_default_subscriptions: 0,
        welcome_message_custom_text: null,
        channel_ids_json: JSON.stringify([publicRoom.id]),
        group_ids_json: "[]",
        is_multiuse: 0,
      });
      expect(r.expires_at! - r.invited_at).toBe(14400 * 60);
      expect(r.link_key).toMatch(/^[a-z0-9]{24}$/);
    }
    const ev = invitesChanged();
    expect(ev.map((e) => e.event)).toEqual([{ type: "invites_changed" }]);
    expect(sorted(ev[0]!.userIds)).toEqual(adminsAnd(s.realm.member.id));

    const mail = await listOutbox(dataDir);
    const mine = mail.filter((m) => m.to.startsWith("new"));
    expect(mine.map((m) => m.to).sort()).toEqual(["new1@example.com", "new2@example.com"]);
    expect(mine[0]!.subject).toBe("Mary Member invited you to join Test Organization");
    const text = await readOutboxMessage(dataDir, mine.find((m) => m.to === "new1@example.com")!.file);
    expect(text).toContain(`/join/${rows.find((r) => r.email === "new1@example.com")!.link_key}/`);
  });

  it("takes every option: role, expiry in minutes or never, groups, default channels, notify, welcome text", async () => {
    const devs = await makeGroup("invite-devs", { canAddMembers: groups.get("role:administrators")! });
    expectSuccess(
      await s.api.post(s.realm.admin, "/invites", {
        invitee_emails: "opt1@example.com",
        stream_ids: [],
        invite_as: Role.MODERATOR,
        invite_expires_in_minutes: 30,
        group_ids: [devs],
        include_realm_default_subscriptions: true,
        notify_referrer_on_join: false,
        welcome_message_custom_text: "Welcome aboard!",
      }),
    );
    expectSuccess(await s.api.post(s.realm.owner, "/invites", { invitee_emails: "opt2@example.com", stream_ids: [privateRoom.id], invite_as: Role.OWNER, invite_expires_in_minutes: null }));
    const rows = await inviteRows();
    const opt1 = rows.find((r) => r.email === "opt1@example.com")!;
    expect(opt1).toMatchObject({ invited_as: Role.MODERATOR, notify_referrer_on_join: 0, include_realm_default_subscriptions: 1, welcome_message_custom_text: "Welcome aboard!", group_ids_json: JSON.stringify([devs]) });
    expect(opt1.expires_at! - opt1.invited_at).toBe(1800);
    expect(rows.find((r) => r.email === "opt2@example.com")).toMatchObject({ invited_as: Role.OWNER, expires_at: null, channel_ids_json: JSON.stringify([privateRoom.id]) });
  });

  it("refuses bad requests in upstream's order and changes nothing", async () => {
    const before = await snapshot();
    const post = (user: typeof s.realm.member, params: Record<string, unknown>) => s.api.post(user, "/invites", params);
    const ok = { invitee_emails: "x1@example.com", stream_ids: [] };
    expectError(await post(s.realm.guest, ok), "Not allowed for guest users");
    expectError(await post(s.realm.bot, ok), "This endpoint does not accept bot requests.");
    expectError(await post(s.realm.member, { stream_ids: [] }), "Missing 'invitee_emails' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post(s.realm.member, { invitee_emails: "x1@example.com" }), "Missing 'stream_ids' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post(s.realm.member, { ...ok, invite_as: 250 }), "Invalid invite_as: Value error, Not in the list of possible values");
    expectError(await post(s.realm.member, { ...ok, invite_expires_in_minutes: "soon" }), "invite_expires_in_minutes is not valid JSON");
    expectError(await post(s.realm.member, { ...ok, group_ids: [1.5] }), "group_ids[0] is not an integer");
    expectError(await post(s.realm.admin, { ...ok, welcome_message_custom_text: "x".repeat(8001) }), "welcome_message_custom_text is too long (limit: 8000 characters)");
    expectError(await post(s.realm.member, { ...ok, invite_as: Role.MODERATOR }), "Must be an organization administrator");
    expectError(await post(s.realm.admin, { ...ok, invite_as: Role.OWNER }), "Must be an organization owner", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await post(s.realm.member, { invitee_emails: "", stream_ids: [] }), "You must specify at least one email address.");
    expectError(await post(s.realm.member, { ...ok, stream_ids: [publicRoom.id, 99999] }), "Invalid channel ID 99999. No invites were sent.");
    expectError(await post(s.realm.member, { ...ok, stream_ids: [privateRoom.id] }), `Invalid channel ID ${privateRoom.id}. No invites were sent.`);
    expectError(await post(s.realm.member, { ...ok, group_ids: [99999] }), "Invalid user group");
    expectError(await post(s.realm.member, { ...ok, group_ids: [groups.get("role:members")!] }), "Insufficient permission");
    const dead = await makeGroup("invite-dead", { deactivated: true, canAddMembers: groups.get("role:everyone")! });
    expectError(await post(s.realm.member, { ...ok, group_ids: [dead] }), "User group is deactivated.");
    const locked = await makeGroup("invite-locked");
    expectError(await post(s.realm.member, { ...ok, group_ids: [locked] }), "Insufficient permission");
    expectError(await post(s.realm.member, { ...ok, welcome_message_custom_text: "Hi" }), "Must be an organization administrator");
    expectError(await post(s.other.member, { ...ok, stream_ids: [publicRoom.id] }), `Invalid channel ID ${publicRoom.id}. No invites were sent.`);
    expect(await snapshot()).toEqual(before);
    expect(invitesChanged()).toEqual([]);
  });

  it("follows the organization's invite and subscribe permissions; default channels are always allowed", async () => {
    const realmId = s.realm.realm.id;
    const setRealm = (values: Record<string, number>) => s.db.updateTable("realms").set(values).where("id", "=", realmId).execute();
    await setRealm({ can_invite_users_group_id: groups.get("role:administrators")! });
    const before = await snapshot();
    expectError(await s.api.post(s.realm.member, "/invites", { invitee_emails: "p1@example.com", stream_ids: [] }), "Insufficient permission");
    expect(await snapshot()).toEqual(before);
    await setRealm({ can_invite_users_group_id: groups.get("role:members")!, can_add_subscribers_group_id: groups.get("role:administrators")! });
    expectError(
      await s.api.post(s.realm.member, "/invites", { invitee_emails: "p1@example.com", stream_ids: [publicRoom.id] }),
      "You do not have permission to subscribe other users to channels.",
    );
    expect(await snapshot()).toEqual(before);
    await s.db.insertInto("default_channels").values({ realm_id: realmId, channel_id: publicRoom.id }).execute();
    expectSuccess(await s.api.post(s.realm.member, "/invites", { invitee_emails: "p1@example.com", stream_ids: [publicRoom.id] }));
    await s.db.deleteFrom("default_channels").where("channel_id", "=", publicRoom.id).execute();
    await setRealm({ can_add_subscribers_group_id: groups.get("role:members")! });
  });

  it("skips existing accounts with INVITATION_FAILED and still invites the others", async () => {
    const res = await s.api.post(s.realm.admin, "/invites", { invitee_emails: `${s.realm.other.delivery_email}, fresh@example.com`, stream_ids: [] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      result: "error",
      code: "INVITATION_FAILED",
      msg: "Some of those addresses are already using Parley, so we didn't send them an invitation. We did send invitations to everyone else!",
      errors: [[s.realm.other.delivery_email, "Already has an account.", false]],
      sent_invitations: true,
      license_limit_reached: false,
      daily_limit_reached: false,
    });
    expect((await inviteRows()).filter((r) => r.email === "fresh@example.com")).toHaveLength(1);
    expect((await listOutbox(dataDir)).filter((m) => m.to === "fresh@example.com")).toHaveLength(1);
    expect(invitesChanged()).toHaveLength(1);
  });

  it("sends nothing when every address is taken or one is invalid", async () => {
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", s.realm.other.id).execute();
    const before = await snapshot();
    const all = expectError(await s.api.post(s.realm.admin, "/invites", { invitee_emails: `${s.realm.member.delivery_email},${s.realm.other.delivery_email}`, stream_ids: [] }), "We weren't able to invite anyone.", { code: "INVITATION_FAILED" });
    expect(all.errors).toEqual([
      [s.realm.member.delivery_email, "Already has an account.", false],
      [s.realm.other.delivery_email, "Account has been deactivated.", true],
    ]);
    expect(all.sent_invitations).toBe(false);
    const bad = expectError(await s.api.post(s.realm.admin, "/invites", { invitee_emails: "not-an-address, ok@example.com", stream_ids: [] }), "Some emails did not validate, so we didn't send any invitations.", { code: "INVITATION_FAILED" });
    expect(bad).toMatchObject({ errors: [["not-an-address", "Invalid address.", false]], sent_invitations: false, daily_limit_reached: false, license_limit_reached: false });
    expect(await snapshot()).toEqual(before);
    await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", s.realm.other.id).execute();
  });

  it("enforces the daily limit per organization, resends included", async () => {
    const sent = (await s.db.selectFrom("invite_sends").select("id").where("realm_id", "=", s.realm.realm.id).execute()).length;
    s.ctx.config.invitesPerDay = sent + 1;
    try {
      const before = await snapshot();
      const res = expectError(await s.api.post(s.realm.admin, "/invites", { invitee_emails: "l1@example.com, l2@example.com", stream_ids: [] }),
        "To protect users, Parley limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.", { code: "INVITATION_FAILED" });
      expect(res).toMatchObject({ errors: [], sent_invitations: false, daily_limit_reached: true, license_limit_reached: false });
      expect(await snapshot()).toEqual(before);
      // Another organization has its own count.
      expectSuccess(await s.api.post(s.other.admin, "/invites", { invitee_emails: "l3@example.com", stream_ids: [] }));
      expectSuccess(await s.api.post(s.realm.admin, "/invites", { invitee_emails: "l1@example.com", stream_ids: [] }));
      const id = (await inviteRows()).find((r) => r.email === "l1@example.com")!.id;
      expectError(await s.api.post(s.realm.admin, `/invites/${id}/resend`), "To protect users, Parley limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.", { code: "INVITATION_FAILED" });
    } finally {
      s.ctx.config.invitesPerDay = 100000;
    }
  });
});

describe("GET /invites, revoke, resend", () => {
  it("lists the caller's pending invitations, everyone's for administrators, in upstream's shape", async () => {
    expectSuccess(await s.api.post(s.realm.moderator, "/invites", { invitee_emails: "listed@example.com", stream_ids: [], notify_referrer_on_join: false }));
    const row = (await inviteRows()).find((r) => r.email === "listed@example.com")!;
    const mine = expectSuccess(await s.api.get(s.realm.moderator, "/invites"));
    expect(mine.invites).toEqual([
      { id: row.id, invited_by_user_id: s.realm.moderator.id, invited: row.invited_at, expiry_date: row.expires_at, invited_as: 400, notify_referrer_on_join: false, is_multiuse: false, email: "listed@example.com" },
    ]);
    const all = expectSuccess(await s.api.get(s.realm.admin, "/invites"));
    expect(all.invites.length).toBeGreaterThan(3);
    expect(all.invites.every((i: any) => i.id !== undefined)).toBe(true);
    const emails = all.invites.map((i: any) => i.email);
    expect(emails).toContain("listed@example.com");
    expect(emails).not.toContain("l3@example.com");
    // Expired invitations are not listed.
    await s.db.updateTable("invites").set({ expires_at: 1 }).where("id", "=", row.id).execute();
    expect(expectSuccess(await s.api.get(s.realm.moderator, "/invites")).invites).toEqual([]);
    expectError(await s.api.get(s.realm.guest, "/invites"), "Not allowed for guest users");
  });

  it("revokes: own invitations, others' for administrators, owners' invitations for owners only", async () => {
    expectSuccess(await s.api.post(s.realm.member, "/invites", { invitee_emails: "rev1@example.com", stream_ids: [] }));
    expectSuccess(await s.api.post(s.realm.owner, "/invites", { invitee_emails: "rev2@example.com", stream_ids: [], invite_as: Role.OWNER }));
    const rows = await inviteRows();
    const rev1 = rows.find((r) => r.email === "rev1@example.com")!;
    const rev2 = rows.find((r) => r.email === "rev2@example.com")!;
    const before = await snapshot();
    expectError(await s.api.delete(s.realm.other, `/invites/${rev1.id}`), "Must be an organization administrator");
    expectError(await s.api.delete(s.realm.admin, `/invites/${rev2.id}`), "Must be an organization owner", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await s.api.delete(s.realm.admin, "/invites/99999"), "No such invitation");
    expectError(await s.api.delete(s.other.owner, `/invites/${rev1.id}`), "No such invitation");
    expectError(await s.api.post(s.realm.other, `/invites/${rev1.id}/resend`), "Must be an organization administrator");
    expectError(await s.api.post(s.other.owner, `/invites/${rev1.id}/resend`), "No such invitation");
    expect(await snapshot()).toEqual(before);
    events = [];
    expectSuccess(await s.api.delete(s.realm.member, `/invites/${rev1.id}`));
    expect(sorted(invitesChanged()[0]!.userIds)).toEqual(adminsAnd(s.realm.member.id));
    expectSuccess(await s.api.delete(s.realm.owner, `/invites/${rev2.id}`));
    expect((await inviteRows()).filter((r) => r.id === rev1.id || r.id === rev2.id).map((r) => r.status)).toEqual([2, 2]);
    expectError(await s.api.delete(s.realm.member, `/invites/${rev1.id}`), "No such invitation");
    expectError(await s.api.post(s.realm.member, `/invites/${rev1.id}/resend`), "No such invitation");
  });

  it("resends the same link by mail", async () => {
    expectSuccess(await s.api.post(s.realm.member, "/invites", { invitee_emails: "again@example.com", stream_ids: [] }));
    const row = (await inviteRows()).find((r) => r.email === "again@example.com")!;
    expect(expectSuccess(await s.api.post(s.realm.admin, `/invites/${row.id}/resend`))).toEqual({ result: "success", msg: "" });
    const mails = (await listOutbox(dataDir)).filter((m) => m.to === "again@example.com");
    expect(mails).toHaveLength(2);
    for (const m of mails) expect(await readOutboxMessage(dataDir, m.file)).toContain(`/join/${row.link_key}/`);
  });
});

describe("reusable invitation links", () => {
  it("administrators create them; the link is listed and revocable once", async () => {
    const before = await snapshot();
    expectError(await s.api.post(s.realm.member, "/invites/multiuse", {}), "Insufficient permission");
    expectError(await s.api.post(s.realm.guest, "/invites/multiuse", {}), "Not allowed for guest users");
    expectError(await s.api.post(s.realm.admin, "/invites/multiuse", { invite_as: Role.OWNER }), "Must be an organization owner", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await s.api.post(s.realm.admin, "/invites/multiuse", { stream_ids: [99999] }), "Invalid channel ID 99999. No invites were sent.");
    expect(await snapshot()).toEqual(before);
    const res = expectSuccess(await s.api.post(s.realm.admin, "/invites/multiuse", { stream_ids: [publicRoom.id], invite_expires_in_minutes: null, invite_as: Role.GUEST }));
    expect(Object.keys(res).sort()).toEqual(["invite_link", "msg", "result"]);
    const row = (await inviteRows()).at(-1)!;
    expect(row).toMatchObject({ is_multiuse: 1, email: "", invited_as: Role.GUEST, expires_at: null, channel_ids_json: JSON.stringify([publicRoom.id]) });
    expect(res.invite_link).toBe(`http://${s.realm.host}/join/${row.link_key}/`);
    expect(sorted(invitesChanged()[0]!.userIds)).toEqual(adminsAnd());
    const listed = expectSuccess(await s.api.get(s.realm.admin, "/invites")).invites.find((i: any) => i.is_multiuse && i.id === row.id);
    expect(listed).toEqual({ id: row.id, invited_by_user_id: s.realm.admin.id, invited: row.invited_at, expiry_date: null, invited_as: 600, notify_referrer_on_join: true, is_multiuse: true, link_url: res.invite_link });
    // An email invitation and a link are different objects even with the same id.
    expectError(await s.api.delete(s.realm.admin, `/invites/multiuse/99999`), "No such invitation");
    expectError(await s.api.delete(s.realm.member, `/invites/multiuse/${row.id}`), "Must be an organization administrator");
    expectSuccess(await s.api.delete(s.realm.owner, `/invites/multiuse/${row.id}`));
    expectError(await s.api.delete(s.realm.owner, `/invites/multiuse/${row.id}`), "Invitation has already been revoked");
    expect(expectSuccess(await s.api.get(s.realm.admin, "/invites")).invites.some((i: any) => i.is_multiuse && i.id === row.id)).toBe(false);
  });
});
