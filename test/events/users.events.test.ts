import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { queuedEvents, register, verifyAction } from "../support/events.js";
import { createChannel } from "../support/channels.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("user events keep /register state current", () => {
  it("renaming a user", async () => {
    await verifyAction(s, s.realm.member, async () =>
      expectSuccess(await s.api.patch(s.realm.admin, `/users/${s.realm.other.id}`, { full_name: "Otto Renamed" })),
    );
  });

  it("renaming the viewer", async () => {
    await verifyAction(s, s.realm.member, async () =>
      expectSuccess(await s.api.patch(s.realm.admin, `/users/${s.realm.member.id}`, { full_name: "Mary Renamed" })),
    );
  });

  it("changing a role", async () => {
    await verifyAction(s, s.realm.member, async () => expectSuccess(await s.api.patch(s.realm.owner, `/users/${s.realm.other.id}`, { role: 300 })));
  });

  // Pending: deactivation must also send peer_remove (and reactivation peer_add) for the
  // user's subscriptions, as upstream; subscriber counts are stale until then.
  it("deactivating and reactivating a user", async () => {
    await verifyAction(s, s.realm.member, async () => expectSuccess(await s.api.delete(s.realm.admin, `/users/${s.realm.moderator.id}`)));
    await verifyAction(s, s.realm.member, async () =>
      expectSuccess(await s.api.post(s.realm.admin, `/users/${s.realm.moderator.id}/reactivate`)),
    );
  });

  it("creating a user", async () => {
    await verifyAction(s, s.realm.member, async () =>
      expectSuccess(await s.api.post(s.realm.owner, "/users", { email: "new@example.com", password: "pw-long-enough", full_name: "New Person" })),
    );
  });

  it("adding a custom profile field", async () => {
    await verifyAction(s, s.realm.member, async () =>
      expectSuccess(await s.api.post(s.realm.admin, "/realm/profile_fields", { name: "Team", field_type: 1 })),
    );
  });
});

describe("subscription events keep /register state current", () => {
  for (const include_subscribers of [false, true]) {
    it(`subscribing and unsubscribing (include_subscribers=${include_subscribers})`, async () => {
      const params = { event_types: ["subscription", "stream"], include_subscribers };
      const name = `sub-room-${include_subscribers}`;
      // The viewer watches others subscribe and leave.
      const viewer = s.realm.admin;
      await verifyAction(s, viewer, async () => expectSuccess(await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name }] })), params);
      await verifyAction(s, viewer, async () => expectSuccess(await s.api.post(s.realm.other, "/users/me/subscriptions", { subscriptions: [{ name }] })), params);
      await verifyAction(s, viewer, async () => expectSuccess(await s.api.delete(s.realm.member, "/users/me/subscriptions", { subscriptions: [name] })), params);
    });
  }
});

describe("deactivation and reactivation change subscriber lists", () => {
  it("peer_remove then realm_user update; reactivation the reverse (include_subscribers)", async () => {
    const { member, other, admin } = s.realm;
    await createChannel(s, { name: "deact-room", subscribers: [member, other] });
    const params = { event_types: ["subscription", "stream", "realm_user"], include_subscribers: true };
    const off = await verifyAction(s, member, async () => expectSuccess(await s.api.delete(admin, `/users/${other.id}`)), params);
    const removals = off.filter((e) => e.op === "peer_remove");
    expect(removals.length).toBeGreaterThan(0);
    for (const e of removals) expect(e.user_ids).toEqual([other.id]);
    expect(off[off.length - 1]).toMatchObject({ type: "realm_user", op: "update", person: { user_id: other.id, is_active: false } });
    const on = await verifyAction(s, member, async () => expectSuccess(await s.api.post(admin, `/users/${other.id}/reactivate`)), params);
    expect(on[0]).toMatchObject({ type: "realm_user", op: "update", person: { user_id: other.id, is_active: true } });
    expect(on.filter((e) => e.op === "peer_add").flatMap((e) => e.user_ids)).toContain(other.id);
  });

  it("public channels without guests share one peer event", async () => {
    const { member, other, admin } = s.realm;
    await createChannel(s, { name: "batch-a", subscribers: [other] });
    await createChannel(s, { name: "batch-b", subscribers: [other] });
    const state = await register(s, member, { event_types: ["subscription"] });
    expectSuccess(await s.api.delete(admin, `/users/${other.id}`));
    const events = await queuedEvents(s, member, state.queue_id);
    const batch = events.filter((e) => e.op === "peer_remove" && e.stream_ids.length > 1);
    expect(batch).toHaveLength(1);
    expect(batch[0].user_ids).toEqual([other.id]);
    // The deactivated user gets none of these events.
    expectSuccess(await s.api.post(admin, `/users/${other.id}/reactivate`));
  });
});
