import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { queuedEvents, register } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import { sendChannelMessage, sendDirectMessage } from "../support/messages.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const caps = { notification_settings_null: true, stream_typing_notifications: true };
const typingQueue = async (user: any) => (await register(s, user, { event_types: ["typing", "typing_edit_message"], client_capabilities: caps })).queue_id as string;
const person = (u: any) => ({ user_id: u.id, email: u.delivery_email });

describe("POST /typing (direct)", () => {
  it("notifies every participant, sender included", async () => {
    const { member, other, admin } = s.realm;
    const queues = { member: await typingQueue(member), other: await typingQueue(other), admin: await typingQueue(admin) };
    expectSuccess(await s.api.post(member, "/typing", { op: "start", to: [other.id] }));
    const expected = { type: "typing", message_type: "direct", op: "start", sender: person(member), recipients: [person(other), person(member)], id: 0 };
    expect(await queuedEvents(s, other, queues.other)).toEqual([expected]);
    expect(await queuedEvents(s, member, queues.member)).toEqual([expected]);
    expect(await queuedEvents(s, admin, queues.admin)).toEqual([]);
    expectSuccess(await s.api.post(member, "/typing", { type: "direct", op: "stop", to: [other.id, member.id] }));
    expect(await queuedEvents(s, other, queues.other, 0)).toMatchObject([{ op: "stop", recipients: [person(other), person(member)] }]);
  });

  it("checks parameters in upstream's order", async () => {
    const { member } = s.realm;
    expectError(await s.api.post(member, "/typing", {}), "Missing 'op' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(member, "/typing", { op: "go", to: [1] }), "Invalid op");
    expectError(await s.api.post(member, "/typing", { type: "x", op: "start" }), "Invalid type");
    expectError(await s.api.post(member, "/typing", { op: "start" }), "Missing 'to' argument");
    expectError(await s.api.post(member, "/typing", { op: "start", to: [] }), "Empty 'to' list");
    expectError(await s.api.post(member, "/typing", { op: "start", to: "[1" }), "to is not valid JSON");
    expectError(await s.api.post(member, "/typing", { op: "start", to: [999999] }), "Invalid user ID 999999");
    expectError(await s.api.post(member, "/typing", { op: "start", to: [s.other.member.id] }), `Invalid user ID ${s.other.member.id}`);
    expect((await s.api.post(null, "/typing", { op: "start", to: [1] })).statusCode).toBe(401);
  });

  it("does not notify deactivated participants", async () => {
    const { member, moderator } = s.realm;
    const q = await typingQueue(moderator);
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", moderator.id).execute();
    try {
      expectSuccess(await s.api.post(member, "/typing", { op: "start", to: [moderator.id] }));
    } finally {
      await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", moderator.id).execute();
    }
    expect(await queuedEvents(s, moderator, q)).toEqual([]);
  });
});

describe("POST /typing (channel)", () => {
  it("notifies the channel's subscribers that understand channel typing", async () => {
    const { member, other, admin } = s.realm;
    const channel = await createChannel(s, { name: "typing-room", subscribers: [member, other] });
    const qOther = await typingQueue(other);
    const qAdmin = await typingQueue(admin);
    const legacy = (await register(s, other, { event_types: ["typing"] })).queue_id;
    expectSuccess(await s.api.post(member, "/typing", { type: "channel", op: "start", stream_id: channel.id, topic: "lunch" }));
    expect(await queuedEvents(s, other, qOther)).toEqual([
      { type: "typing", message_type: "stream", op: "start", sender: person(member), stream_id: channel.id, topic: "lunch", id: 0 },
    ]);
    expect(await queuedEvents(s, admin, qAdmin)).toEqual([]);
    expect(await queuedEvents(s, other, legacy)).toEqual([]);
    expectSuccess(await s.api.post(member, "/typing", { type: "stream", op: "stop", stream_id: channel.id, topic: "(no topic)" }));
    // "(no topic)" is the empty topic, shown by its display name to clients without empty_topic_name.
    expect(await queuedEvents(s, other, qOther, 0)).toMatchObject([{ op: "stop", topic: s.realm.realm.empty_topic_display_name }]);
  });

  it("checks the channel", async () => {
    const { member, guest } = s.realm;
    const secret = await createChannel(s, { name: "secret-typing", invite_only: true, subscribers: [s.realm.admin] });
    expectError(await s.api.post(member, "/typing", { type: "stream", op: "start" }), "Missing 'stream_id' argument");
    expectError(await s.api.post(member, "/typing", { type: "stream", op: "start", stream_id: secret.id }), "Missing topic");
    expectError(await s.api.post(member, "/typing", { type: "stream", op: "start", stream_id: secret.id, topic: "t" }), "Invalid channel ID");
    expectError(await s.api.post(guest, "/typing", { type: "stream", op: "start", stream_id: 99999, topic: "t" }), "Invalid channel ID");
  });
});

describe("POST /messages/{message_id}/typing", () => {
  it("sends typing_edit_message for a channel message to its subscribers", async () => {
    const { member, other } = s.realm;
    const channel = await createChannel(s, { name: "edit-room", subscribers: [member, other] });
    const id = await sendChannelMessage(s, member, "edit-room", "plans", "hello");
    const q = await typingQueue(other);
    expectSuccess(await s.api.post(member, `/messages/${id}/typing`, { op: "start" }));
    expect(await queuedEvents(s, other, q)).toEqual([
      {
        type: "typing_edit_message",
        op: "start",
        sender_id: member.id,
        message_id: id,
        recipient: { type: "channel", channel_id: channel.id, topic: "plans" },
        id: 0,
      },
    ]);
  });

  it("sends typing_edit_message for a direct message to its participants", async () => {
    const { member, other, admin } = s.realm;
    const id = await sendDirectMessage(s, member, [other], "psst");
    const q = await typingQueue(other);
    const qAdmin = await typingQueue(admin);
    expectSuccess(await s.api.post(member, `/messages/${id}/typing`, { op: "stop" }));
    const [event] = await queuedEvents(s, other, q);
    expect(event).toMatchObject({ type: "typing_edit_message", op: "stop", sender_id: member.id, message_id: id, recipient: { type: "direct" } });
    expect([...event.recipient.user_ids].sort()).toEqual([member.id, other.id].sort());
    expect(await queuedEvents(s, admin, qAdmin)).toEqual([]);
  });

  it("requires edit permission", async () => {
    const { member, other, admin } = s.realm;
    const id = await sendDirectMessage(s, member, [other], "mine");
    expectError(await s.api.post(member, `/messages/${id}/typing`, {}), "Missing 'op' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(member, `/messages/${id}/typing`, { op: "type" }), "Invalid op");
    expectError(await s.api.post(admin, `/messages/${id}/typing`, { op: "start" }), "Invalid message(s)");
    expectError(await s.api.post(member, "/messages/999999/typing", { op: "start" }), "Invalid message(s)");
    expectError(await s.api.post(other, `/messages/${id}/typing`, { op: "start" }), "You don't have permission to edit this message");
    await s.db.updateTable("messages").set({ date_sent: 1000 }).where("id", "=", id).execute();
    await s.db.updateTable("realms").set({ message_content_edit_limit_seconds: 600 }).where("id", "=", s.realm.realm.id).execute();
    expectError(await s.api.post(member, `/messages/${id}/typing`, { op: "start" }), "The time limit for editing this message has passed");
    await s.db.updateTable("realms").set({ allow_message_editing: 0 }).where("id", "=", s.realm.realm.id).execute();
    try {
      expectError(await s.api.post(member, `/messages/${id}/typing`, { op: "start" }), "Your organization has turned off message editing");
    } finally {
      await s.db.updateTable("realms").set({ allow_message_editing: 1 }).where("id", "=", s.realm.realm.id).execute();
    }
  });
});
