import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage } from "../support/messages.js";

let s: TestServer;
let channelId: number;
beforeAll(async () => {
  s = await startTestServer();
  channelId = (await makeChannel(s, "prefs", { subscribers: [s.realm.member, s.realm.other] })).id;
  await sendChannelMessage(s, s.realm.other, "prefs", "Noisy", "unread one");
  await sendChannelMessage(s, s.realm.other, "prefs", "noisy", "unread two");
});
afterAll(() => s.close());

const setPolicy = (topic: string, visibility_policy: number) => () =>
  s.api.post(s.realm.member, "/user_topics", { stream_id: channelId, topic, visibility_policy }).then(expectSuccess);

describe("user_topic events keep /register state current", () => {
  it("muting, following and clearing a topic with unread messages (unread count follows)", async () => {
    const params = { fetch_event_types: ["user_topic", "muted_topics", "message", "update_message_flags", "subscription"] };
    const muted = await verifyAction(s, s.realm.member, setPolicy("NOISY", 1), params);
    expect(muted.map((e) => e.type)).toEqual(["muted_topics", "user_topic"]);
    await verifyAction(s, s.realm.member, setPolicy("noisy", 3), params);
    await verifyAction(s, s.realm.member, setPolicy("Noisy", 0), params);
  });
});
