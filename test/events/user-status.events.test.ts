import { afterAll, beforeAll, describe, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { expectSuccess } from "../support/client.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const setOwn = (params: Record<string, unknown>) => () => s.api.post(s.realm.member, "/users/me/status", params).then(expectSuccess);

describe("user_status events keep /register state current", () => {
  it("text, emoji, partial changes and clearing", async () => {
    const viewer = s.realm.other;
    await verifyAction(s, viewer, setOwn({ status_text: "lunch" }));
    await verifyAction(s, viewer, setOwn({ emoji_name: "hamburger" }));
    await verifyAction(s, viewer, setOwn({ status_text: "" }));
    await verifyAction(s, viewer, setOwn({ emoji_name: "" }));
  });

  it("an administrator's change to someone's status", async () => {
    await verifyAction(s, s.realm.member, () => s.api.post(s.realm.admin, `/users/${s.realm.other.id}/status`, { status_text: "away", emoji_name: "car" }).then(expectSuccess));
  });
});
