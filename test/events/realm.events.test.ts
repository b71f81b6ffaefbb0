import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { verifyAction } from "../support/events.js";
import { createChannel } from "../support/channels.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("linkifier events keep /register state current", () => {
  it("add, update and remove", async () => {
    const viewer = s.realm.member;
    const params = { event_types: ["realm_linkifiers"], client_capabilities: { notification_settings_null: true, linkifier_url_template: true } };
    let id = 0;
    await verifyAction(s, viewer, async () => {
      id = expectSuccess(await s.api.post(s.realm.admin, "/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://example.com/{id}" })).id;
    }, params);
    await verifyAction(s, viewer, async () =>
      expectSuccess(await s.api.patch(s.realm.admin, `/realm/filters/${id}`, { pattern: "T(?P<id>[0-9]+)", url_template: "https://example.com/t/{id}" })), params);
    const events = await verifyAction(s, viewer, async () => expectSuccess(await s.api.delete(s.realm.admin, `/realm/filters/${id}`)), params);
    expect(events.map((e) => e.type)).toEqual(["realm_linkifiers"]);
  });

  it("clients without linkifier_url_template get no linkifier events", async () => {
    const events = await verifyAction(s, s.realm.member, async () =>
      expectSuccess(await s.api.post(s.realm.admin, "/realm/filters", { pattern: "X(?P<id>[0-9]+)", url_template: "https://example.com/x/{id}" })),
      { event_types: ["realm_linkifiers"] });
    expect(events).toEqual([]);
  });
});

describe("channel property events keep /register state current", () => {
  it("description and name changes", async () => {
    const c = await createChannel(s, { name: "props-room", subscribers: [s.realm.member] });
    const params = { event_types: ["stream", "subscription"] };
    await verifyAction(s, s.realm.member, async () => expectSuccess(await s.api.patch(s.realm.admin, `/streams/${c.id}`, { description: "New words" })), params);
    await verifyAction(s, s.realm.other, async () => expectSuccess(await s.api.patch(s.realm.admin, `/streams/${c.id}`, { new_name: "props-renamed" })), params);
  });
});
