import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import { sendChannelMessage, sendDirectMessage } from "../support/messages.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("message events keep /register state current", () => {
  it("a direct message raises max_message_id", async () => {
    const events = await verifyAction(s, s.realm.other, () => sendDirectMessage(s, s.realm.member, [s.realm.other], "hi"), { event_types: ["message"] });
    expect(events.map((e) => e.type)).toEqual(["message"]);
  });

  it("a channel message raises max_message_id", async () => {
    await createChannel(s, { name: "events-room", subscribers: [s.realm.member, s.realm.other] });
    await verifyAction(s, s.realm.other, () => sendChannelMessage(s, s.realm.member, "events-room", "t", "hello"), { event_types: ["message"] });
  });
});

describe("channel events keep /register state current", () => {
  it("creating a channel with the viewer subscribed", async () => {
    await verifyAction(s, s.realm.other, () => createChannel(s, { name: "new-room", subscribers: [s.realm.member, s.realm.other] }), {
      event_types: ["stream", "subscription"],
      include_subscribers: true,
    });
  });

  it("creating a channel others are in", async () => {
    await verifyAction(s, s.realm.other, () => createChannel(s, { name: "their-room", subscribers: [s.realm.member] }), {
      event_types: ["stream", "subscription"],
    });
  });
});
