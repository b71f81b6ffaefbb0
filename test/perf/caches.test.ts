/**
 * The cached hot paths: once warm, GET /users/me, GET /server_settings and GET /users run
 * no statement, whatever the number of users; POST /register reads only the caller's own
 * rows (the realm-wide parts are cached); a poll of GET /events reads nothing (its queue
 * is in memory).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSuccess } from "../support/client.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { addMembers } from "../support/load-users.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** Statements of the second of two identical requests (the first fills the caches). */
async function warmCount(request: () => Promise<unknown>): Promise<number> {
  await request();
  return s.countQueries(request, { warm: true });
}

describe("query counts of cached hot paths", () => {
  const me = () => s.api.get(s.realm.member, "/users/me").then(expectSuccess);
  const settings = () => s.api.get(null, "/server_settings").then(expectSuccess);
  const users = () => s.api.get(s.realm.member, "/users", { include_custom_profile_fields: true }).then(expectSuccess);

  it("are fixed and small, and do not grow with the number of users", async () => {
    const small = [await warmCount(me), await warmCount(settings), await warmCount(users)];
    await addMembers(s, 30, "cached-qc-");
    const large = [await warmCount(me), await warmCount(settings), await warmCount(users)];
    expect(small).toEqual([0, 0, 0]);
    expect(large).toEqual(small);
  });

  it("GET /users for a limited guest stays uncached but fixed", async () => {
    const members = await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", "role:members").executeTakeFirstOrThrow();
    await s.db.updateTable("realms").set({ can_access_all_users_group_id: members.id }).where("id", "=", s.realm.realm.id).execute();
    const guestUsers = () => s.api.get(s.realm.guest, "/users").then(expectSuccess);
    const small = await warmCount(guestUsers);
    await addMembers(s, 10, "cached-qc-guest-");
    expect(await warmCount(guestUsers)).toBe(small);
    expect(small, "the access check and the list are read for a limited guest").toBeGreaterThan(0);
  });

  it("POST /register, warm, runs a fixed number of statements whatever the number of users and channels", async () => {
    const capabilities = JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: true, stream_typing_notifications: true, user_settings_object: true });
    const asBench = () => s.api.post(s.realm.member, "/register", { apply_markdown: true, slim_presence: true, client_capabilities: capabilities }).then(expectSuccess);
    const withSubscribers = () => s.api.post(s.realm.member, "/register", { include_subscribers: true }).then(expectSuccess);
    const small = [await warmCount(asBench), await warmCount(withSubscribers)];
    const many = await addMembers(s, 30, "cached-qc-register-");
    for (let i = 0; i < 5; i++) {
      expectSuccess(await s.api.post(s.realm.owner, "/users/me/subscriptions", { subscriptions: [{ name: `cached qc ${i}` }], principals: JSON.stringify([s.realm.member.id, ...many.map((u) => u.id)]) }));
    }
    expectSuccess(await s.api.post(s.realm.other, "/users/me/presence", { status: "active" }));
    const large = [await warmCount(asBench), await warmCount(withSubscribers)];
    expect(large).toEqual(small);
    // The auth lookup, the presence sequence and the caller's own rows (subscriptions,
    // unread messages, conversations, drafts, settings…); no realm-wide list.
    expect(small[0]).toBeLessThanOrEqual(20);
  });

  it("GET /events on a queue runs no statement, whatever the number of events and users", async () => {
    const { member, other } = s.realm;
    const queue = expectSuccess(await s.api.post(member, "/register", { event_types: ["message"] }));
    const poll = () => s.api.get(member, "/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true }).then(expectSuccess);
    const empty = await warmCount(poll);
    await addMembers(s, 10, "cached-qc-events-");
    for (let i = 0; i < 10; i++) expectSuccess(await s.api.post(other, "/messages", { type: "direct", to: [member.id], content: `event ${i}` }));
    const full = await warmCount(poll);
    expect((await poll()).events).toHaveLength(10);
    expect([empty, full]).toEqual([0, 0]);
  });
});
