import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { register, verifyAction } from "../support/events.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("navigation_view events keep /register state current", () => {
  it("add, update and remove", async () => {
    const u = s.realm.member;
    const params = { event_types: ["navigation_view"] };
    expect((await register(s, u, params)).navigation_views).toEqual([]);
    await verifyAction(s, u, async () => expectSuccess(await s.api.post(u, "/navigation_views", { fragment: "inbox", is_pinned: false })), params);
    await verifyAction(s, u, async () => expectSuccess(await s.api.post(u, "/navigation_views", { fragment: "narrow/is/dm", is_pinned: true, name: "DMs" })), params);
    await verifyAction(s, u, async () => expectSuccess(await s.api.patch(u, "/navigation_views/narrow/is/dm", { name: "Direct", is_pinned: false })), params);
    await verifyAction(s, u, async () => expectSuccess(await s.api.delete(u, "/navigation_views/inbox")), params);
    expect((await register(s, u, params)).navigation_views).toEqual([{ fragment: "narrow/is/dm", is_pinned: false, name: "Direct" }]);
    // Other users' queues get nothing.
    const events = await verifyAction(s, s.realm.other, async () => expectSuccess(await s.api.post(u, "/navigation_views", { fragment: "feed", is_pinned: true })), params);
    expect(events).toEqual([]);
  });
});
