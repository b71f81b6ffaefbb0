import { afterAll, beforeAll, describe, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { expectSuccess } from "../support/client.js";
import { makeChannel } from "../support/messages.js";

let s: TestServer;
let mods: { id: number };
beforeAll(async () => {
  s = await startTestServer();
  mods = await makeChannel(s, "moderators", { subscribers: [s.realm.owner], invite_only: true });
});
afterAll(() => s.close());

const patch = (params: Record<string, unknown>) => () => s.api.patch(s.realm.owner, "/realm", params).then(expectSuccess);

describe("PATCH /realm events keep /register state current", () => {
  it("moderation request channel set and unset", async () => {
    await verifyAction(s, s.realm.member, patch({ moderation_request_channel_id: mods.id }));
    await verifyAction(s, s.realm.member, patch({ moderation_request_channel_id: -1 }));
  });

  it("allow_message_editing and waiting_period_threshold", async () => {
    await verifyAction(s, s.realm.member, patch({ allow_message_editing: false, waiting_period_threshold: 5 }));
  });
});
