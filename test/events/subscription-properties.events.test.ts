/** Subscription property changes keep /register's subscriptions and unread counts current. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { register, verifyAction } from "../support/events.js";
import { makeChannel, sendChannelMessage } from "../support/messages.js";

let s: TestServer;
let room: { id: number };
beforeAll(async () => {
  s = await startTestServer();
  const { member, other } = s.realm;
  room = await makeChannel(s, "props-room", { subscribers: [member, other] });
  await sendChannelMessage(s, other, "props-room", "t", "unread for member");
  await sendChannelMessage(s, other, "props-room", "u", "another");
});
afterAll(() => s.close());

const STATE = { event_types: ["subscription", "message", "update_message_flags", "user_topic"] };
const change = (property: string, value: unknown) => async () =>
  expectSuccess(await s.api.post(s.realm.member, "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: room.id, property, value }] }));

describe("subscription property events", () => {
  it("every property, with the subscription list and unread count kept consistent", async () => {
    const { member } = s.realm;
    expect((await register(s, member, STATE)).unread_msgs.count).toBe(2);
    await verifyAction(s, member, change("color", "#123456"), STATE);
    await verifyAction(s, member, change("pin_to_top", true), STATE);
    await verifyAction(s, member, change("desktop_notifications", false), STATE);
    await verifyAction(s, member, change("audible_notifications", true), STATE);
    await verifyAction(s, member, change("push_notifications", false), STATE);
    await verifyAction(s, member, change("email_notifications", true), STATE);
    await verifyAction(s, member, change("wildcard_mentions_notify", false), STATE);
    const events = await verifyAction(s, member, change("is_muted", true), STATE);
    expect(events.map((e) => e.property)).toEqual(["in_home_view", "is_muted"]);
    expect((await register(s, member, STATE)).unread_msgs.count).toBe(0);
    await verifyAction(s, member, change("in_home_view", true), STATE);
    expect((await register(s, member, STATE)).unread_msgs.count).toBe(2);
  });
});
