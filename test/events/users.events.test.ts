import { afterAll, beforeAll, describe, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { verifyAction } from "../support/events.js";

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
  it.skip("deactivating and reactivating a user", async () => {
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
