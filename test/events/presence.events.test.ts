import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { verifyAction } from "../support/events.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const report = (user: any, status: string) => async () => expectSuccess(await s.api.post(user, "/users/me/presence", { status, ping_only: true }));

describe("presence events keep /register state current", () => {
  it("legacy format", async () => {
    const events = await verifyAction(s, s.realm.other, report(s.realm.member, "active"), { event_types: ["presence"] });
    expect(events.map((e) => e.type)).toEqual(["presence"]);
  });

  it("slim presence with simplified events", async () => {
    const events = await verifyAction(s, s.realm.other, report(s.realm.admin, "idle"), {
      event_types: ["presence"],
      slim_presence: true,
      client_capabilities: { notification_settings_null: true, simplified_presence_events: true },
    });
    expect(events).toMatchObject([{ type: "presence", presences: { [String(s.realm.admin.id)]: {} } }]);
  });

  it("slim presence with legacy events", async () => {
    const events = await verifyAction(s, s.realm.other, report(s.realm.moderator, "active"), { event_types: ["presence"], slim_presence: true });
    expect(events[0].email).toBeUndefined();
  });
});
