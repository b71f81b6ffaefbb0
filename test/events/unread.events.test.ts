/**
 * unread_msgs and recent_private_conversations stay current: sending, reading and
 * marking unread, deleting and moving messages, checked against a fresh /register.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { register, verifyAction } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import { sendChannelMessage, sendDirectMessage } from "../support/messages.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  const { member, other, admin, moderator } = s.realm;
  await createChannel(s, { name: "unread-room", subscribers: [member, other, admin, moderator] });
  await createChannel(s, { name: "unread-elsewhere", subscribers: [member, other, admin] });
});
afterAll(() => s.close());

const UNREAD = { event_types: ["message", "update_message_flags", "delete_message", "update_message"] };
const WITH_MUTING = { event_types: [...UNREAD.event_types, "subscription", "user_topic"] };
const RECENT = { event_types: ["message", "recent_private_conversations"] };
const flags = (user: any, messages: number[], op: "add" | "remove") => async () =>
  expectSuccess(await s.api.post(user, "/messages/flags", { messages, op, flag: "read" }));

describe("unread_msgs", () => {
  it("starts in upstream's shape", async () => {
    const state = await register(s, s.realm.other, UNREAD);
    expect(state.unread_msgs).toEqual({ pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
    // Only with both message and update_message_flags, as upstream.
    expect((await register(s, s.realm.other, { event_types: ["message"] })).unread_msgs).toBeUndefined();
  });

  it("a channel message with a mention, then more in the same topic with another case", async () => {
    const { member, other } = s.realm;
    const events = await verifyAction(s, other, () => sendChannelMessage(s, member, "unread-room", "Plans", "hi @**Otto Other**"), UNREAD);
    expect(events.map((e) => e.type)).toEqual(["message"]);
    await verifyAction(s, other, () => sendChannelMessage(s, member, "unread-room", "plans", "more"), UNREAD);
    const state = await register(s, other, UNREAD);
    expect(state.unread_msgs.streams).toEqual([{ stream_id: expect.any(Number), topic: "Plans", unread_message_ids: [expect.any(Number), expect.any(Number)] }]);
    expect(state.unread_msgs.mentions).toHaveLength(1);
    expect(state.unread_msgs.count).toBe(2);
  });

  it("direct messages: one-to-one, to oneself and to a group", async () => {
    const { member, other, admin } = s.realm;
    await verifyAction(s, other, () => sendDirectMessage(s, member, [other], "hello"), UNREAD);
    await verifyAction(s, other, () => sendDirectMessage(s, member, [other, admin], "all of us"), UNREAD);
    // A message to oneself is read by its sender: nothing unread.
    await verifyAction(s, other, () => sendDirectMessage(s, other, [other], "note to self"), UNREAD);
    const { unread_msgs } = await register(s, other, UNREAD);
    expect(unread_msgs.pms).toEqual([{ other_user_id: member.id, sender_id: member.id, unread_message_ids: [expect.any(Number)] }]);
    const group = [member.id, other.id, admin.id].sort((a, b) => a - b).join(",");
    expect(unread_msgs.huddles).toEqual([{ user_ids_string: group, unread_message_ids: [expect.any(Number)] }]);
  });

  it("the full /register stays consistent too", async () => {
    const { member, other } = s.realm;
    await verifyAction(s, other, () => sendChannelMessage(s, member, "unread-room", "full", "everything"));
    await verifyAction(s, other, () => sendDirectMessage(s, member, [other], "everything too"));
  });

  it("marking read and unread", async () => {
    const { member, other } = s.realm;
    const channelMsg = await sendChannelMessage(s, member, "unread-room", "flags", "read me @**Otto Other**");
    const dm = await sendDirectMessage(s, member, [other], "read me too");
    const groupDm = await sendDirectMessage(s, member, [other, s.realm.admin], "and me");
    await verifyAction(s, other, flags(other, [channelMsg, dm, groupDm], "add"), UNREAD);
    const events = await verifyAction(s, other, flags(other, [channelMsg, dm, groupDm], "remove"), UNREAD);
    expect(events[0]).toMatchObject({ type: "update_message_flags", op: "remove", flag: "read" });
    await verifyAction(s, other, flags(other, [dm], "add"), WITH_MUTING);
  });

  it("deleting a message", async () => {
    const { member, other, admin } = s.realm;
    const id = await sendChannelMessage(s, member, "unread-room", "doomed", "bye");
    // A newer message keeps max_message_id, which a client cannot recompute from events.
    await sendChannelMessage(s, member, "unread-room", "doomed", "stays");
    const events = await verifyAction(s, other, async () => expectSuccess(await s.api.delete(admin, `/messages/${id}`)), UNREAD);
    expect(events.map((e) => e.type)).toContain("delete_message");
    const dm = await sendDirectMessage(s, member, [other], "doomed dm");
    await sendDirectMessage(s, member, [other], "keeps the conversation's newest id");
    await verifyAction(s, other, async () => expectSuccess(await s.api.delete(member, `/messages/${dm}`)), {
      event_types: [...UNREAD.event_types, "recent_private_conversations"],
    });
  });

  it("moving a topic, and moving it to another channel", async () => {
    const { member, other } = s.realm;
    const first = await sendChannelMessage(s, member, "unread-room", "old topic", "one");
    await sendChannelMessage(s, member, "unread-room", "old topic", "two");
    await verifyAction(s, other, async () =>
      expectSuccess(await s.api.patch(member, `/messages/${first}`, { topic: "new topic", propagate_mode: "change_all" })), UNREAD);
    const elsewhere = await s.db.selectFrom("channels").select("id").where("name", "=", "unread-elsewhere").executeTakeFirstOrThrow();
    await verifyAction(s, other, async () =>
      expectSuccess(await s.api.patch(member, `/messages/${first}`, { stream_id: elsewhere.id, propagate_mode: "change_all" })), UNREAD);
    const { unread_msgs } = await register(s, other, UNREAD);
    // (The move notices the notification bot posts are unread too.)
    const moved = unread_msgs.streams.find((g: any) => g.stream_id === elsewhere.id && g.topic === "new topic");
    expect(moved.unread_message_ids).toEqual(expect.arrayContaining([first, first + 1]));
  });

  it("muted channels and topics: listed, but not counted", async () => {
    const { member, other } = s.realm;
    const muted = await createChannel(s, { name: "unread-muted", subscribers: [member, other] });
    await s.db
      .updateTable("subscriptions")
      .set({ is_muted: 1 })
      .where("user_id", "=", other.id)
      .where("recipient_id", "=", muted.recipient_id!)
      .execute();
    await verifyAction(s, other, () => sendChannelMessage(s, member, "unread-muted", "quiet", "shh @**all**"), WITH_MUTING);
    const before = await register(s, other, UNREAD);
    const id = await sendChannelMessage(s, member, "unread-muted", "quiet", "still quiet");
    const after = await register(s, other, UNREAD);
    expect(after.unread_msgs.count).toBe(before.unread_msgs.count);
    expect(after.unread_msgs.streams.find((g: any) => g.stream_id === muted.id).unread_message_ids).toContain(id);
    await verifyAction(s, other, flags(other, [id], "add"), WITH_MUTING);
  });

  it("clients without empty_topic_name see the empty topic by its display name", async () => {
    const { member, other } = s.realm;
    await verifyAction(s, other, () => sendChannelMessage(s, member, "unread-room", "", "no topic"), UNREAD);
    const legacy = await register(s, other, UNREAD);
    const modern = await register(s, other, { ...UNREAD, client_capabilities: { notification_settings_null: true, empty_topic_name: true } });
    expect(modern.unread_msgs.streams.map((g: any) => g.topic)).toContain("");
    expect(legacy.unread_msgs.streams.map((g: any) => g.topic)).not.toContain("");
    expect(legacy.unread_msgs.streams.map((g: any) => g.topic)).toContain(s.realm.realm.empty_topic_display_name);
  });
});

describe("recent_private_conversations", () => {
  it("new conversations and newer messages in known ones, newest first", async () => {
    const { member, other, admin, moderator } = s.realm;
    const events = await verifyAction(s, moderator, () => sendDirectMessage(s, member, [moderator], "first"), RECENT);
    expect(events.map((e) => e.type)).toEqual(["message"]);
    await verifyAction(s, moderator, () => sendDirectMessage(s, moderator, [admin, other], "a group"), RECENT);
    await verifyAction(s, moderator, () => sendDirectMessage(s, moderator, [moderator], "to myself"), RECENT);
    await verifyAction(s, moderator, () => sendDirectMessage(s, moderator, [member], "back to the first"), RECENT);
    const { recent_private_conversations } = await register(s, moderator, RECENT);
    expect(recent_private_conversations.map((c: any) => c.user_ids)).toEqual([[member.id], [], [admin.id, other.id].sort((a, b) => a - b)]);
    expect(recent_private_conversations[0]).toEqual({ user_ids: [member.id], max_message_id: expect.any(Number) });
  });
});
