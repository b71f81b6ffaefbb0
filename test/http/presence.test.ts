import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { queuedEvents, register } from "../support/events.js";
import { createChannel } from "../support/channels.js";

let s: TestServer;
let clock: number;
beforeAll(async () => {
  s = await startTestServer();
  clock = Math.floor(Date.now() / 1000) * 1000;
  s.ctx.now = () => clock;
});
afterAll(() => s.close());
beforeEach(async () => {
  await s.db.deleteFrom("presence").execute();
  await s.db.updateTable("users").set({ presence_enabled: 1 }).execute();
  await s.db.updateTable("realms").set({ presence_disabled: 0, can_access_all_users_group_id: null }).where("id", "=", -1).execute();
});

const nowS = () => Math.floor(clock / 1000);
const advance = (seconds: number) => {
  clock += seconds * 1000;
};
const rows = () => s.db.selectFrom("presence").selectAll().orderBy("user_id").execute();
const post = (user: any, params: Record<string, unknown>) => s.api.post(user, "/users/me/presence", params);

describe("POST /users/me/presence", () => {
  it("records the first report and returns legacy presences by default", async () => {
    const { member } = s.realm;
    const body = expectSuccess(await post(member, { status: "active" }));
    expect(await rows()).toMatchObject([{ user_id: member.id, last_active_time: nowS(), last_connected_time: nowS(), realm_id: s.realm.realm.id }]);
    expect(body.server_timestamp).toBe(clock / 1000);
    expect(body.presences).toEqual({
      [member.delivery_email]: {
        aggregated: { client: "website", status: "active", timestamp: nowS() },
        website: { client: "website", status: "active", timestamp: nowS(), pushable: false },
      },
    });
    expect(body.presence_last_update_id).toBeGreaterThan(0);
  });

  it("answers in the modern format with slim_presence or last_update_id", async () => {
    const { member, other } = s.realm;
    expectSuccess(await post(other, { status: "idle" }));
    const slim = expectSuccess(await post(member, { status: "active", slim_presence: true }));
    expect(slim.presences).toEqual({
      [String(other.id)]: { active_timestamp: other.date_joined, idle_timestamp: nowS() },
      [String(member.id)]: { active_timestamp: nowS(), idle_timestamp: nowS() },
    });
    const full = expectSuccess(await post(member, { status: "active", last_update_id: -1 }));
    expect(full.presences).toEqual(slim.presences);
  });

  it("returns only changes after last_update_id", async () => {
    const { member, other, admin } = s.realm;
    const first = expectSuccess(await post(member, { status: "active", last_update_id: -1 }));
    const id = first.presence_last_update_id;
    const none = expectSuccess(await post(member, { status: "active", last_update_id: id }));
    expect(none).toMatchObject({ presences: {}, presence_last_update_id: id });
    expectSuccess(await post(other, { status: "active", ping_only: true }));
    const delta = expectSuccess(await post(member, { status: "active", last_update_id: id }));
    expect(Object.keys(delta.presences)).toEqual([String(other.id)]);
    expect(delta.presence_last_update_id).toBeGreaterThan(id);
    expectSuccess(await post(admin, { status: "idle", ping_only: true }));
    const next = expectSuccess(await post(member, { status: "active", last_update_id: delta.presence_last_update_id }));
    expect(Object.keys(next.presences)).toEqual([String(admin.id)]);
  });

  it("includes the caller's own report in an incremental answer when it wrote one", async () => {
    const { member, other } = s.realm;
    const id = expectSuccess(await post(member, { status: "active", last_update_id: -1 })).presence_last_update_id;
    advance(60);
    expectSuccess(await post(other, { status: "idle", ping_only: true }));
    // The throttle lets this report write: the answer is read after it, own row included.
    const delta = expectSuccess(await post(member, { status: "active", last_update_id: id }));
    expect(delta.presences).toEqual({
      [String(other.id)]: { active_timestamp: other.date_joined, idle_timestamp: nowS() },
      [String(member.id)]: { active_timestamp: nowS(), idle_timestamp: nowS() },
    });
    const [stored] = (await rows()).filter((r) => r.user_id === member.id);
    expect(delta.presence_last_update_id).toBe(Math.max(...(await rows()).map((r) => r.last_update_id)));
    expect(stored.last_active_time).toBe(nowS());
    // Within the throttle nothing is written and nothing new is answered.
    advance(10);
    expect(expectSuccess(await post(member, { status: "active", last_update_id: delta.presence_last_update_id }))).toMatchObject({
      presences: {},
      presence_last_update_id: delta.presence_last_update_id,
    });
    // A caller in invisible mode sees others' changes, never their own row.
    await s.db.updateTable("users").set({ presence_enabled: 0 }).where("id", "=", member.id).execute();
    advance(60);
    expectSuccess(await post(other, { status: "active", ping_only: true }));
    const invisible = expectSuccess(await post(member, { status: "active", last_update_id: delta.presence_last_update_id }));
    expect(Object.keys(invisible.presences)).toEqual([String(other.id)]);
  });

  it("throttles writes within the minimum interval", async () => {
    const { member } = s.realm;
    expectSuccess(await post(member, { status: "active", ping_only: true }));
    const [before] = await rows();
    advance(30);
    expectSuccess(await post(member, { status: "active", ping_only: true }));
    expect(await rows()).toEqual([before]);
    advance(30);
    expectSuccess(await post(member, { status: "idle", ping_only: true }));
    const [after] = await rows();
    expect(after).toMatchObject({ last_active_time: before.last_active_time, last_connected_time: nowS() });
    expect(after.last_update_id).toBeGreaterThan(before.last_update_id);
  });

  it("ping_only returns no data", async () => {
    const body = expectSuccess(await post(s.realm.member, { status: "idle", ping_only: true }));
    expect(body).toEqual({ result: "success", msg: "" });
    expect(await rows()).toMatchObject([{ last_active_time: null, last_connected_time: nowS() }]);
  });

  it("applies history_limit_days to full fetches", async () => {
    const { member, other } = s.realm;
    expectSuccess(await post(other, { status: "active", ping_only: true }));
    advance(3 * 86400);
    const recent = expectSuccess(await post(member, { status: "active", last_update_id: -1, history_limit_days: 2 }));
    expect(Object.keys(recent.presences)).toEqual([String(member.id)]);
    const zero = expectSuccess(await post(member, { status: "active", last_update_id: -1, history_limit_days: 0 }));
    expect(zero.presences).toEqual({});
    const wide = expectSuccess(await post(member, { status: "active", last_update_id: -1 }));
    expect(Object.keys(wide.presences).sort()).toEqual([String(member.id), String(other.id)].sort());
  });

  it("shares nothing for users in invisible mode", async () => {
    const { member, other } = s.realm;
    await s.db.updateTable("users").set({ presence_enabled: 0 }).where("id", "=", other.id).execute();
    const invisible = { ...other, presence_enabled: 0 };
    expectSuccess(await post(invisible, { status: "active", ping_only: true }));
    expect(await rows()).toEqual([]);
    const body = expectSuccess(await post(member, { status: "active", slim_presence: true }));
    expect(Object.keys(body.presences)).toEqual([String(member.id)]);
  });

  it("returns nothing when the organization disabled presence", async () => {
    await s.db.updateTable("realms").set({ presence_disabled: 1 }).where("id", "=", s.realm.realm.id).execute();
    try {
      const res = await s.api.post(s.realm.member, "/users/me/presence", { status: "active", last_update_id: 3 });
      expect(expectSuccess(res)).toMatchObject({ presences: {}, presence_last_update_id: -1 });
    } finally {
      await s.db.updateTable("realms").set({ presence_disabled: 0 }).where("id", "=", s.realm.realm.id).execute();
    }
  });

  it("limits presence to users the caller can access", async () => {
    const { member, other, guest, realm } = s.realm;
    const groups = await s.db.selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", realm.id).execute();
    const membersGroup = groups.find((g) => g.name === "role:members")!.id;
    await s.db.updateTable("realms").set({ can_access_all_users_group_id: membersGroup }).where("id", "=", realm.id).execute();
    // The guest leaves every channel but one shared with `other`.
    await s.db.updateTable("subscriptions").set({ active: 0 }).where("user_id", "=", guest.id).execute();
    try {
      await createChannel(s, { name: "guest-room", subscribers: [guest, other] });
      expectSuccess(await post(member, { status: "active", ping_only: true }));
      expectSuccess(await post(other, { status: "active", ping_only: true }));
      const body = expectSuccess(await post(guest, { status: "active", slim_presence: true }));
      expect(Object.keys(body.presences).sort()).toEqual([String(other.id), String(guest.id)].sort());
    } finally {
      await s.db.updateTable("realms").set({ can_access_all_users_group_id: realm.can_access_all_users_group_id }).where("id", "=", realm.id).execute();
    }
  });

  it("sends a presence event when a user comes online", async () => {
    const { member, other } = s.realm;
    const watcher = await register(s, other, { event_types: ["presence"] });
    const slimWatcher = await register(s, other, {
      event_types: ["presence"],
      slim_presence: true,
      client_capabilities: { notification_settings_null: true, simplified_presence_events: true },
    });
    expectSuccess(await post(member, { status: "active", ping_only: true }));
    const events = await queuedEvents(s, other, watcher.queue_id);
    expect(events).toEqual([
      {
        type: "presence",
        id: 0,
        email: member.delivery_email,
        user_id: member.id,
        server_timestamp: clock / 1000,
        presence: { website: { client: "website", status: "active", timestamp: nowS(), pushable: false } },
      },
    ]);
    expect(await queuedEvents(s, other, slimWatcher.queue_id)).toEqual([
      { type: "presence", id: 0, presences: { [String(member.id)]: { active_timestamp: nowS(), idle_timestamp: nowS() } } },
    ]);
    // Staying online sends nothing more.
    advance(60);
    expectSuccess(await post(member, { status: "active", ping_only: true }));
    expect(await queuedEvents(s, other, watcher.queue_id, 0)).toEqual([]);
  });

  it("validates parameters in order and rejects bots", async () => {
    const { member, bot } = s.realm;
    expectError(await post(bot, { status: "active" }), "This endpoint does not accept bot requests.");
    expectError(await post(member, {}), "Missing 'status' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post(member, { status: "away" }), "Invalid status: away");
    expectError(await post(member, { status: "" }), "Invalid status: ");
    expectError(await post(member, { status: "x", ping_only: "yes" }), "ping_only is not valid JSON");
    expectError(await post(member, { status: "active", last_update_id: "1.5" }), "last_update_id is not an integer");
    expectError(await post(member, { status: "active", history_limit_days: "x", last_update_id: "y" }), "history_limit_days is not valid JSON");
    expect(await rows()).toEqual([]);
    expect((await s.api.post(null, "/users/me/presence", { status: "active" })).statusCode).toBe(401);
  });

  it("accepts new_user_input", async () => {
    expectSuccess(await post(s.realm.member, { status: "active", new_user_input: true, ping_only: true }));
  });
});

describe("GET presence of users", () => {
  it("returns one user's aggregated presence, offline after the threshold", async () => {
    const { member, other, bot } = s.realm;
    expectSuccess(await post(other, { status: "active", ping_only: true }));
    const body = expectSuccess(await s.api.get(member, `/users/${other.id}/presence`));
    expect(body.presence).toEqual({ aggregated: { status: "active", timestamp: nowS() }, website: { status: "active", timestamp: nowS() } });
    advance(300);
    const later = expectSuccess(await s.api.get(member, `/users/${other.delivery_email}/presence`));
    expect(later.presence.aggregated.status).toBe("offline");
    expectError(await s.api.get(member, `/users/${bot.id}/presence`), "Presence is not supported for bot users.");
    expectError(await s.api.get(member, `/users/${s.realm.admin.id}/presence`), `No presence data for ${s.realm.admin.id}`);
    expectError(await s.api.get(member, `/users/${s.other.member.id}/presence`), "No such user");
  });

  it("GET /realm/presence lists the realm in the legacy format", async () => {
    expectSuccess(await post(s.realm.other, { status: "idle", ping_only: true }));
    const body = expectSuccess(await s.api.get(s.realm.member, "/realm/presence"));
    expect(Object.keys(body.presences)).toEqual([s.realm.other.delivery_email]);
    expect(body.presences[s.realm.other.delivery_email].aggregated.status).toBe("idle");
  });
});
