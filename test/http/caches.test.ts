/**
 * The caches (src/caches) never serve a stale value: each test fills a cache, changes the
 * underlying row (through the API, through a direct write of this process, or as another
 * node would: a write this process does not see plus the event on the bus), and expects
 * the new value on the very next request.
 */
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doCreateUser } from "../../src/actions/users-create.js";
import type { User } from "../../src/db/schema.js";
import { EmailVisibility, Role } from "../../src/lib/roles.js";
import { Caches } from "../../src/caches/index.js";
import { GenerationalMap } from "../../src/caches/generational-map.js";
import { withTransaction } from "../../src/db/tx.js";
import { basicAuth, expectError, expectSuccess } from "../support/client.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

let counter = 0;
async function makeUser(role: number = Role.MEMBER): Promise<User> {
  counter++;
  return doCreateUser(s.ctx, s.realm.realm, { email: `cached${counter}@example.com`, fullName: `Cached User ${counter}`, password: null, role });
}
const me = async (user: User) => expectSuccess(await s.api.get(user, "/users/me"));
const members = async (user: User | null, params = {}) => expectSuccess(await s.api.get(user, "/users", params)).members as Array<Record<string, any>>;
const memberOf = async (viewer: User, id: number, params = {}) => (await members(viewer, params)).find((m) => m.user_id === id);
/** The database without the cache write watcher: a write another node (or process) made. */
const elsewhere = () => s.db.withoutPlugins();

describe("user by API key", () => {
  it("a deactivated user gets 401 on the next request, and a reactivated one gets in again", async () => {
    const user = await makeUser();
    await me(user);
    expectSuccess(await s.api.delete(s.realm.admin, `/users/${user.id}`));
    expectError(await s.api.get(user, "/users/me"), "Account is deactivated", { status: 401, code: "UNAUTHORIZED" });
    expectSuccess(await s.api.post(s.realm.admin, `/users/${user.id}/reactivate`));
    expect((await me(user)).user_id).toBe(user.id);
  });

  it("a demoted administrator loses administrator endpoints on the next request", async () => {
    const admin = await makeUser(Role.ADMINISTRATOR);
    expectSuccess(await s.api.patch(admin, "/realm", { description: "set by an administrator" }));
    expectSuccess(await s.api.patch(s.realm.owner, `/users/${admin.id}`, { role: Role.MEMBER }));
    expectError(await s.api.patch(admin, "/realm", { description: "no longer" }), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expect((await me(admin)).role).toBe(Role.MEMBER);
  });

  it("a changed API key stops the old key at once (a write with no event)", async () => {
    const user = await makeUser();
    await me(user);
    const newKey = "N".repeat(32);
    await s.db.updateTable("users").set({ api_key: newKey }).where("id", "=", user.id).execute();
    expectError(await s.api.get(user, "/users/me"), "Invalid API key", { status: 401, code: "UNAUTHORIZED" });
    expect((await me({ ...user, api_key: newKey })).user_id).toBe(user.id);
  });

  it("another node's role change arrives as its event and takes effect on the next request", async () => {
    const admin = await makeUser(Role.ADMINISTRATOR);
    expect((await me(admin)).is_admin).toBe(true);
    await elsewhere().updateTable("users").set({ role: Role.MEMBER }).where("id", "=", admin.id).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "realm_user", op: "update", person: { user_id: admin.id, role: Role.MEMBER } }, []);
    expect((await me(admin)).is_admin).toBe(false);
    expectError(await s.api.patch(admin, "/realm", { description: "no longer" }), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
  });

  it("another node's deactivation with no recipient still flushes (the bus hands every event to the caches)", async () => {
    const user = await makeUser();
    await me(user);
    await elsewhere().updateTable("users").set({ is_active: 0 }).where("id", "=", user.id).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "realm_user", op: "remove", person: { user_id: user.id } }, []);
    expectError(await s.api.get(user, "/users/me"), "Account is deactivated", { status: 401, code: "UNAUTHORIZED" });
  });

  it("a deactivated organization is refused on the next request", async () => {
    const user = await makeUser();
    await me(user);
    await elsewhere().updateTable("realms").set({ deactivated: 1 }).where("id", "=", s.realm.realm.id).execute();
    try {
      s.ctx.events.publish(s.realm.realm.id, { type: "realm", op: "deactivated", realm_id: s.realm.realm.id }, []);
      expectError(await s.api.get(user, "/users/me"), "This organization has been deactivated", { status: 401, code: "UNAUTHORIZED" });
    } finally {
      await s.db.updateTable("realms").set({ deactivated: 0 }).where("id", "=", s.realm.realm.id).execute();
    }
    expect((await me(user)).user_id).toBe(user.id);
  });
});

describe("own profile values (GET /users/me)", () => {
  it("show a changed and a removed value on the next request", async () => {
    const user = await makeUser();
    const field = expectSuccess(await s.api.post(s.realm.admin, "/realm/profile_fields", { name: "Own cached", field_type: 1 })).id as number;
    expect((await me(user)).profile_data).toEqual({});
    expectSuccess(await s.api.patch(user, "/users/me/profile_data", { data: [{ id: field, value: "mine" }] }));
    expect((await me(user)).profile_data[String(field)]).toEqual({ value: "mine", rendered_value: "<p>mine</p>" });
    await s.db.deleteFrom("custom_profile_field_values").where("user_id", "=", user.id).execute();
    expect((await me(user)).profile_data[String(field)]).toBeUndefined();
  });
});

describe("highest message id (GET /users/me)", () => {
  it("follows a message sent to the user, its deletion, and another node's message", async () => {
    const user = await makeUser();
    const before = (await me(user)).max_message_id as number;
    const sent = expectSuccess(await s.api.post(s.realm.member, "/messages", { type: "direct", to: JSON.stringify([user.id]), content: "for the cache" })).id as number;
    expect((await me(user)).max_message_id).toBe(sent);
    expectSuccess(await s.api.delete(s.realm.member, `/messages/${sent}`));
    expect((await me(user)).max_message_id).toBe(before);
    // Another node delivers a message: a row this process does not see written, plus the event.
    const other = expectSuccess(await s.api.post(s.realm.member, "/messages", { type: "direct", to: JSON.stringify([s.realm.other.id]), content: "elsewhere" })).id as number;
    await me(user);
    await elsewhere().insertInto("user_messages").values({ realm_id: s.realm.realm.id, user_id: user.id, message_id: other, flags: 0 }).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "message", message: { id: other }, flags: [] } as never, [user.id]);
    expect((await me(user)).max_message_id).toBe(other);
  });
});

describe("server_settings", () => {
  const settings = async () => expectSuccess(await s.api.get(null, "/server_settings"));

  it("shows a new description and name on the next request", async () => {
    await settings();
    expectSuccess(await s.api.patch(s.realm.owner, "/realm", { name: "Renamed for caches", description: "Now with **bold**" }));
    const after = await settings();
    expect(after.realm_name).toBe("Renamed for caches");
    expect(after.realm_description).toBe("<p>Now with <strong>bold</strong></p>");
  });

  it("shows another node's description change with its event", async () => {
    await settings();
    await elsewhere().updateTable("realms").set({ description: "from elsewhere" }).where("id", "=", s.realm.realm.id).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "realm", op: "update", property: "description", value: "from elsewhere" }, []);
    expect((await settings()).realm_description).toBe("<p>from elsewhere</p>");
  });

  it("follows web-public channels", async () => {
    await s.db.updateTable("realms").set({ enable_spectator_access: 1 }).where("id", "=", s.realm.realm.id).execute();
    const before = (await settings()).realm_web_public_access_enabled as boolean;
    await s.db.insertInto("channels").values({ realm_id: s.realm.realm.id, name: "cached public square", is_web_public: 1, date_created: 0 }).execute();
    expect(before).toBe(false);
    expect((await settings()).realm_web_public_access_enabled).toBe(true);
  });

  it("answers incompatible clients with their own flag", async () => {
    const res = await s.api.get(null, "/server_settings", {}, { headers: { "user-agent": "ParleyInvalid/1.0" } });
    expect(expectSuccess(res).is_incompatible).toBe(true);
    expect((await settings()).is_incompatible).toBe(false);
  });
});

describe("GET /users", () => {
  it("reflects a name change, a new user, a role change, a deactivation and a profile value", async () => {
    const viewer = s.realm.other;
    const user = await makeUser();
    await members(viewer);
    expectSuccess(await s.api.patch(user, "/settings", { full_name: "Renamed Cached" }));
    expect((await memberOf(viewer, user.id))?.full_name).toBe("Renamed Cached");

    const added = await makeUser();
    expect((await memberOf(viewer, added.id))?.full_name).toBe(added.full_name);

    expectSuccess(await s.api.patch(s.realm.owner, `/users/${user.id}`, { role: Role.MODERATOR }));
    expect((await memberOf(viewer, user.id))?.role).toBe(Role.MODERATOR);

    expectSuccess(await s.api.delete(s.realm.admin, `/users/${added.id}`));
    expect((await memberOf(viewer, added.id))?.is_active).toBe(false);

    const field = expectSuccess(await s.api.post(s.realm.admin, "/realm/profile_fields", { name: "Cached phone", field_type: 1 })).id as number;
    const withProfile = { include_custom_profile_fields: true };
    expect((await memberOf(viewer, user.id, withProfile))?.profile_data[String(field)]).toBeUndefined();
    expectSuccess(await s.api.patch(user, "/users/me/profile_data", { data: [{ id: field, value: "555-0100" }] }));
    expect((await memberOf(viewer, user.id, withProfile))?.profile_data[String(field)]).toEqual({ value: "555-0100", rendered_value: "<p>555-0100</p>" });
  });

  it("reflects another node's name change with its event", async () => {
    const user = await makeUser();
    await members(s.realm.other);
    await elsewhere().updateTable("users").set({ full_name: "Named Elsewhere" }).where("id", "=", user.id).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "realm_user", op: "update", person: { user_id: user.id, full_name: "Named Elsewhere" } }, [s.realm.other.id]);
    expect((await memberOf(s.realm.other, user.id))?.full_name).toBe("Named Elsewhere");
  });

  it("is what the uncached path answers, for every kind of viewer (emails, own record, spectators)", async () => {
    const hidden = await makeUser();
    await s.db.updateTable("users").set({ email_address_visibility: EmailVisibility.ADMINS }).where("id", "=", hidden.id).execute();
    const moderatorsOnly = await makeUser();
    await s.db.updateTable("users").set({ email_address_visibility: EmailVisibility.MODERATORS }).where("id", "=", moderatorsOnly.id).execute();
    await s.db.updateTable("realms").set({ enable_spectator_access: 1 }).where("id", "=", s.realm.realm.id).execute();
    const { owner, admin, moderator, member, guest, bot } = s.realm;
    for (const viewer of [owner, admin, moderator, member, guest, bot, hidden, moderatorsOnly, null]) {
      for (const params of [{}, { client_hashavatar: false }, { include_custom_profile_fields: true }]) {
        const cached = await members(viewer, params);
        const ids = cached.map((m) => m.user_id as number);
        // user_ids takes the uncached path: the same records, rendered for this viewer alone.
        const uncached = await members(viewer, { ...params, user_ids: JSON.stringify(ids) });
        expect(cached, `viewer ${viewer?.delivery_email ?? "spectator"} ${JSON.stringify(params)}`).toEqual(uncached);
      }
    }
    const ownRecord = await memberOf(hidden, hidden.id);
    expect(ownRecord?.delivery_email).toBe(hidden.delivery_email);
    expect((await memberOf(member, hidden.id))?.delivery_email).toBeNull();
    expect((await memberOf(admin, hidden.id))?.delivery_email).toBe(hidden.delivery_email);
  });

  it("reports ignored parameters next to the cached list", async () => {
    const body = JSON.parse((await s.api.get(s.realm.member, "/users", { no_such_parameter: 1 })).body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["result", "msg", "members", "ignored_parameters_unsupported"]);
    expect(body.ignored_parameters_unsupported).toEqual(["no_such_parameter"]);
  });

  it("sends a large list with the viewer's own record spliced in, in parts behind a correct Content-Length", async () => {
    // Past 64 KB the parts go out as they are (no copy of the list per request).
    const { member } = s.realm;
    while (Buffer.byteLength((await s.api.get(member, "/users")).body) <= 70 * 1024) {
      for (let i = 0; i < 50; i++) await makeUser();
    }
    await s.db.updateTable("users").set({ email_address_visibility: EmailVisibility.ADMINS }).where("id", "=", member.id).execute();
    const res = await s.api.get(member, "/users");
    expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
    const cached = expectSuccess(res).members as Array<Record<string, unknown>>;
    expect(cached.find((m) => m.user_id === member.id)?.delivery_email).toBe(member.delivery_email);
    const uncached = await members(member, { user_ids: JSON.stringify(cached.map((m) => m.user_id)) });
    expect(cached).toEqual(uncached);
  });

  it("sends a large cached list gzipped to clients that accept gzip, never an old one", async () => {
    const { admin } = s.realm;
    while (Buffer.byteLength((await s.api.get(admin, "/users")).body) <= 70 * 1024) {
      for (let i = 0; i < 50; i++) await makeUser();
    }
    const withGzip = (acceptEncoding: string) =>
      s.app.inject({ method: "GET", url: "/api/v1/users", headers: { host: s.realm.host, authorization: basicAuth(admin), "accept-encoding": acceptEncoding } });
    // The copy is made in the background on the first request that accepts gzip: plain until then.
    const gzipped = async () => {
      for (let i = 0; i < 100; i++) {
        const res = await withGzip("gzip, deflate");
        expect(Number(res.headers["content-length"])).toBe(res.rawPayload.length);
        if (res.headers["content-encoding"] === "gzip") return gunzipSync(res.rawPayload).toString();
        expect(res.headers.vary).toBe("accept-encoding");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error("never gzipped");
    };
    const plain = await s.api.get(admin, "/users");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("accept-encoding");
    expect(await gzipped()).toBe(plain.body);
    expect((await withGzip("gzip;q=0")).headers["content-encoding"]).toBeUndefined();
    // A change makes a new list: no request sees the old one, compressed or not.
    const renamed = await makeUser();
    expectSuccess(await s.api.patch(s.realm.owner, `/users/${renamed.id}`, { full_name: "Renamed For Gzip" }));
    const first = await withGzip("gzip");
    const firstText = first.headers["content-encoding"] === "gzip" ? gunzipSync(first.rawPayload).toString() : first.body;
    expect(firstText).toContain("Renamed For Gzip");
    expect(await gzipped()).toContain("Renamed For Gzip");
  });
});

describe("full presence data", () => {
  const fullPresence = async (viewer: User) =>
    expectSuccess(await s.api.post(viewer, "/users/me/presence", { status: "active", last_update_id: -1 })).presences as Record<string, unknown>;

  it("shows a new report, a deactivation and another process's report on the next request", async () => {
    const viewer = await makeUser();
    const reporter = await makeUser();
    expect(await fullPresence(viewer)).not.toHaveProperty(String(reporter.id));
    // A report bumps the realm's presence sequence.
    expectSuccess(await s.api.post(reporter, "/users/me/presence", { status: "idle" }));
    expect(await fullPresence(viewer)).toHaveProperty(String(reporter.id));
    // A deactivation changes no presence row: the user change flushes the entry.
    expectSuccess(await s.api.delete(s.realm.admin, `/users/${reporter.id}`));
    expect(await fullPresence(viewer)).not.toHaveProperty(String(reporter.id));
    // Another process (or node) reports: only the sequence tells.
    const other = await makeUser();
    const now = Math.floor(Date.now() / 1000);
    const sequence = (await elsewhere().selectFrom("presence_sequence").select("last_update_id").where("realm_id", "=", s.realm.realm.id).executeTakeFirstOrThrow()).last_update_id;
    await elsewhere().insertInto("presence").values({ realm_id: s.realm.realm.id, user_id: other.id, last_active_time: now, last_connected_time: now, last_update_id: sequence + 1 }).execute();
    await elsewhere().updateTable("presence_sequence").set({ last_update_id: sequence + 1 }).where("realm_id", "=", s.realm.realm.id).execute();
    expect(await fullPresence(viewer)).toHaveProperty(String(other.id));
  });
});

describe("fills racing with invalidations", () => {
  it("a value read before a flush is not stored", async () => {
    const map = new GenerationalMap<string, number>();
    let release!: () => void;
    const loading = map.getOrLoad("k", () => new Promise<number>((resolve) => (release = () => resolve(1))));
    map.flush();
    release();
    expect(await loading).toBe(1);
    expect(map.get("k")).toBeUndefined();
    expect(await map.getOrLoad("k", async () => 2)).toBe(2);
    expect(map.get("k")).toBe(2);
  });

  it("a list filled while a transaction's write was not yet committed is flushed when it commits", async () => {
    const user = await makeUser();
    const viewer = await makeUser();
    await members(viewer);
    let readDuringTransaction: Promise<Array<Record<string, any>>> | undefined;
    await withTransaction(s.db, async (tx) => {
      await tx.updateTable("users").set({ full_name: "Renamed In Transaction" }).where("id", "=", user.id).execute();
      // Another request fills the list meanwhile, from what is committed (the old name, on
      // PostgreSQL and the SQLite reader; in-memory SQLite waits for the transaction).
      readDuringTransaction = members(viewer);
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    await readDuringTransaction;
    expect((await memberOf(viewer, user.id))?.full_name).toBe("Renamed In Transaction");
  });
});

describe("other processes' writes", () => {
  it("are checked once per turn of the event loop, and again in the next turn", async () => {
    const caches = new Caches();
    let checks = 0;
    let changed = false;
    caches.watchExternal({ changed: () => (checks++, changed) });
    const realms = caches.realms as unknown as { flushAll(): void };
    let flushes = 0;
    const flushAll = realms.flushAll.bind(realms);
    realms.flushAll = () => (flushes++, flushAll());
    caches.checkExternalWrites();
    caches.checkExternalWrites();
    expect(checks).toBe(1);
    // The next turn checks again and flushes when another process committed.
    await new Promise((resolve) => setImmediate(resolve));
    changed = true;
    caches.checkExternalWrites();
    expect([checks, flushes]).toEqual([2, 1]);
  });
});
