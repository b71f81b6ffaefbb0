import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage } from "../support/messages.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await makeChannel(s, "reacting", { subscribers: [s.realm.member, s.realm.other] });
});
afterAll(() => s.close());

describe("reaction events keep /register state current", () => {
  it("adding and removing a reaction", async () => {
    const id = await sendChannelMessage(s, s.realm.member, "reacting", "t", "hello");
    const added = await verifyAction(s, s.realm.member, () => s.api.post(s.realm.other, `/messages/${id}/reactions`, { emoji_name: "tada" }).then(expectSuccess));
    expect(added.filter((e) => e.type === "reaction").map((e) => e.op)).toEqual(["add"]);
    const removed = await verifyAction(s, s.realm.member, () => s.api.delete(s.realm.other, `/messages/${id}/reactions`, { emoji_name: "tada" }).then(expectSuccess));
    expect(removed.filter((e) => e.type === "reaction").map((e) => e.op)).toEqual(["remove"]);
  });
});
