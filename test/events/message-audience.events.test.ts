/**
 * Events about existing messages reach exactly the users who can read them (issue 8,
 * item 1), and keep the /register state of those who get them current. Each case is a
 * regression: the late subscriber of a protected-history channel, or a former
 * subscriber, used to receive the event.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { queuedEvents, register, verifyAction } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import { sendChannelMessage, subscribe } from "../support/messages.js";
import type { Channel, User } from "../../src/db/schema.js";

let s: TestServer;
let n = 0;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const about = (events: Array<Record<string, any>>, id: number) =>
  events.filter((e) => e.message_id === id || [e.message_ids, e.messages].some((ids) => Array.isArray(ids) && ids.includes(id)));

/**
 * A private channel (protected history unless told) with a message from member; other
 * subscribes afterwards, moderator received it and then left.
 */
async function protectedScenario(historyPublic = false): Promise<{ channel: Channel; id: number }> {
  const { member, moderator, other } = s.realm;
  const channel = await createChannel(s, { name: `vault-${++n}`, invite_only: true, history_public_to_subscribers: historyPublic, subscribers: [member, moderator] });
  const id = await sendChannelMessage(s, member, channel.name, "plans", "the secret plan");
  await subscribe(s, channel.recipient_id!, [other]);
  expectSuccess(await s.api.delete(moderator, "/users/me/subscriptions", { subscriptions: [channel.name] }));
  return { channel, id };
}

/** Runs the action with every listed user registered; returns the events each got about the message. */
async function eventsFor(users: User[], id: number, action: () => Promise<unknown>): Promise<Map<number, Array<Record<string, any>>>> {
  const queues = new Map<number, Record<string, any>>();
  for (const u of users) queues.set(u.id, await register(s, u));
  await action();
  const out = new Map<number, Array<Record<string, any>>>();
  for (const u of users) {
    const q = queues.get(u.id)!;
    out.set(u.id, about(await queuedEvents(s, u, q.queue_id, q.last_event_id), id));
  }
  return out;
}

describe("update_message: content edits", () => {
  it("reach subscribers who received the message, not a late subscriber of a protected-history channel nor a former subscriber", async () => {
    const { member, moderator, other } = s.realm;
    const { id } = await protectedScenario();
    expectError(await s.api.get(other, `/messages/${id}`), "Invalid message(s)");
    expectError(await s.api.get(moderator, `/messages/${id}`), "Invalid message(s)");
    const got = await eventsFor([other, moderator], id, () => s.api.patch(member, `/messages/${id}`, { content: "the new secret plan" }));
    expect(got.get(other.id)).toEqual([]);
    expect(got.get(moderator.id)).toEqual([]);
    const events = await verifyAction(s, member, () => s.api.patch(member, `/messages/${id}`, { content: "the final plan" }));
    expect(about(events, id).map((e) => e.type)).toEqual(["update_message"]);
  });

  it("reach a late subscriber when the channel shares its history with subscribers", async () => {
    const { member, other } = s.realm;
    const { id } = await protectedScenario(true);
    const events = await verifyAction(s, other, () => s.api.patch(member, `/messages/${id}`, { content: "shared plan" }));
    expect(about(events, id)).toEqual([expect.objectContaining({ type: "update_message", content: "shared plan", orig_content: "the secret plan", flags: ["read"] })]);
  });
});

describe("update_message: topic edits and moves within a channel", () => {
  it("do not reveal the old or new topic to a late subscriber or a former subscriber", async () => {
    const { member, moderator, other } = s.realm;
    const { id } = await protectedScenario();
    const got = await eventsFor([other, moderator], id, () => s.api.patch(member, `/messages/${id}`, { topic: "renamed plans" }));
    expect(got.get(other.id)).toEqual([]);
    expect(got.get(moderator.id)).toEqual([]);
  });

  it("tell a late subscriber only about the moved messages they received, without the edited message's content", async () => {
    const { member, other } = s.realm;
    const { channel, id } = await protectedScenario();
    const later = await sendChannelMessage(s, member, channel.name, "plans", "a later note");
    const events = await verifyAction(s, other, () => s.api.patch(member, `/messages/${id}`, { topic: "moved plans", propagate_mode: "change_all", content: "rewritten" }));
    const updates = events.filter((e) => e.type === "update_message");
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ message_id: later, message_ids: [later], orig_subject: "plans", subject: "moved plans", flags: [] });
    for (const key of ["content", "orig_content", "rendered_content", "orig_rendered_content", "prev_rendered_content_version", "is_me_message"]) {
      expect(updates[0]).not.toHaveProperty(key);
    }
  });
});

describe("update_message and delete_message: moves between channels", () => {
  it("users gaining access get the update; users losing it (with or without a row) get delete_message", async () => {
    const { member, owner, other, moderator, guest } = s.realm;
    // Shared history: other joined after the message (no row) and can read it.
    const { id } = await protectedScenario(true);
    const target = await createChannel(s, { name: `target-${++n}`, invite_only: true, subscribers: [member, owner] });
    const got = await eventsFor([other, owner, moderator, guest], id, () => s.api.patch(member, `/messages/${id}`, { stream_id: target.id }));
    expect(got.get(other.id)!.map((e) => e.type)).toEqual(["delete_message"]);
    expect(got.get(owner.id)!.map((e) => e.type)).toEqual(["update_message"]);
    expect(got.get(moderator.id)).toEqual([]);
    expect(got.get(guest.id)).toEqual([]);
    expectError(await s.api.get(other, `/messages/${id}`), "Invalid message(s)");
    expectSuccess(await s.api.get(owner, `/messages/${id}`));
  });

  it("keep the /register state of a user losing access current", async () => {
    const { member, other } = s.realm;
    const { id } = await protectedScenario(true);
    const target = await createChannel(s, { name: `target-${++n}`, invite_only: true, subscribers: [member] });
    const events = await verifyAction(s, other, () => s.api.patch(member, `/messages/${id}`, { stream_id: target.id }));
    expect(about(events, id).map((e) => e.type)).toEqual(["delete_message"]);
  });
});

describe("delete_message", () => {
  it("does not reach a former subscriber or a late subscriber of a protected-history channel", async () => {
    const { member, moderator, other } = s.realm;
    const { id } = await protectedScenario();
    const got = await eventsFor([other, moderator], id, () => s.api.delete(member, `/messages/${id}`));
    expect(got.get(other.id)).toEqual([]);
    expect(got.get(moderator.id)).toEqual([]);
  });

  it("reaches the readers and keeps their state current", async () => {
    const { member, other } = s.realm;
    const { id } = await protectedScenario(true);
    const events = await verifyAction(s, other, () => s.api.delete(member, `/messages/${id}`));
    expect(about(events, id).map((e) => e.type)).toEqual(["delete_message"]);
  });
});

describe("typing_edit_message", () => {
  it("does not reach a late subscriber of a protected-history channel", async () => {
    const { member, other, owner } = s.realm;
    const { channel, id } = await protectedScenario();
    await subscribe(s, channel.recipient_id!, [owner]);
    const got = await eventsFor([other, owner], id, () => s.api.post(member, `/messages/${id}/typing`, { op: "start" }));
    expect(got.get(other.id)).toEqual([]);
    expect(got.get(owner.id)).toEqual([]);
    const own = await eventsFor([member], id, () => s.api.post(member, `/messages/${id}/typing`, { op: "stop" }));
    expect(own.get(member.id)!.map((e) => e.type)).toEqual(["typing_edit_message"]);
  });
});

describe("update_message_flags", () => {
  it("reaches only the user whose flags changed", async () => {
    const { member, other } = s.realm;
    const { id } = await protectedScenario(true);
    const got = await eventsFor([other, member], id, () => s.api.post(member, "/messages/flags", { messages: [id], op: "add", flag: "starred" }));
    expect(got.get(other.id)).toEqual([]);
    expect(got.get(member.id)!.map((e) => e.type)).toEqual(["update_message_flags"]);
    const events = await verifyAction(s, member, () => s.api.post(member, "/messages/flags", { messages: [id], op: "remove", flag: "starred" }));
    expect(events.filter((e) => e.type === "update_message_flags")).toEqual([expect.objectContaining({ messages: [id], flag: "starred", op: "remove" })]);
  });
});
