import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { queuedEvents, register } from "../support/events.js";
import { createChannel } from "../support/channels.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ longPollSeconds: 1, eventQueueIdleSeconds: 5 });
});
afterAll(() => s.close());

describe("POST /register", () => {
  it("returns a queue, last_event_id and the state of every event type", async () => {
    const body = await register(s, s.realm.member);
    expect(typeof body.queue_id).toBe("string");
    expect(body.last_event_id).toBe(-1);
    expect(body).toMatchObject({
      chat_feature_level: 416,
      max_message_length: 10000,
      max_topic_length: 60,
      realm_empty_topic_display_name: "general chat",
      server_presence_ping_interval_seconds: 60,
      server_presence_offline_threshold_seconds: 200,
      user_id: s.realm.member.id,
      full_name: "Mary Member",
      realm_name: "Test Organization",
      drafts: [],
      user_topics: [],
      realm_linkifiers: [],
      custom_profile_fields: [],
      presences: {},
      max_message_id: -1,
    });
    expect(typeof body.chat_version).toBe("string");
    expect(body.realm_users.map((u: any) => u.user_id)).toContain(s.realm.bot.id);
    expect(body.realm_users.every((u: any) => u.is_active)).toBe(true);
    expect(body.realm_users.map((u: any) => u.user_id)).not.toContain(s.other.member.id);
  });

  it("fetches only the requested types", async () => {
    const body = await register(s, s.realm.member, { event_types: ["message"] });
    expect(Object.keys(body).sort()).toEqual(
      ["chat_feature_level", "chat_merge_base", "chat_version", "last_event_id", "max_message_id", "msg", "queue_id", "result"].sort(),
    );
    const both = await register(s, s.realm.member, { event_types: ["message"], fetch_event_types: ["realm"] });
    expect(both.max_message_length).toBe(10000);
    expect(both.max_message_id).toBeUndefined();
  });

  it("validates parameters", async () => {
    const m = s.realm.member;
    expectError(await s.api.post(m, "/register", { event_types: "x" }), "event_types is not valid JSON");
    expectError(await s.api.post(m, "/register", { event_types: [1] }), "event_types[0] is not a string");
    expectError(await s.api.post(m, "/register", { client_capabilities: {} }), "notification_settings_null key is missing from client_capabilities");
    expectError(
      await s.api.post(m, "/register", { client_capabilities: { notification_settings_null: true, x: 1 } }),
      'client_capabilities["x"] is not a boolean',
    );
    expectError(await s.api.post(m, "/register", { narrow: [["stream"]] }), "narrow[0] should have exactly 2 items");
    expectError(await s.api.post(m, "/register", { apply_markdown: "yes" }), "apply_markdown is not valid JSON");
    expectError(await s.api.post(s.realm.guest, "/register", { all_public_streams: true }), "User not authorized for this query");
    expect(s.ctx.eventQueues.store.count()).toBeGreaterThan(0);
  });

  it("requires authentication", async () => {
    const res = await s.api.post(null, "/register", {});
    expect(res.statusCode).toBe(401);
  });
});

describe("GET /events", () => {
  it("returns queued events with ids and drops acknowledged ones", async () => {
    const { queue_id } = await register(s, s.realm.member);
    s.ctx.events.publish(s.realm.realm.id, { type: "test_event", n: 1 }, [s.realm.member.id]);
    s.ctx.events.publish(s.realm.realm.id, { type: "test_event", n: 2 }, [s.realm.member.id]);
    expect(await queuedEvents(s, s.realm.member, queue_id)).toEqual([
      { type: "test_event", n: 1, id: 0 },
      { type: "test_event", n: 2, id: 1 },
    ]);
    expect(await queuedEvents(s, s.realm.member, queue_id, 0)).toEqual([{ type: "test_event", n: 2, id: 1 }]);
    expect(await queuedEvents(s, s.realm.member, queue_id, 1)).toEqual([]);
    expectError(await s.api.get(s.realm.member, "/events", { queue_id, last_event_id: 0, dont_block: true }), "An event newer than 0 has already been pruned!");
    expectError(await s.api.get(s.realm.member, "/events", { queue_id, last_event_id: 7, dont_block: true }), "Event 7 was not in this queue");
  });

  it("delivers only to the addressed users, in their realm, and filters by event_types", async () => {
    const mine = await register(s, s.realm.member, { event_types: ["wanted"] });
    const others = await register(s, s.realm.other);
    s.ctx.events.publish(s.realm.realm.id, { type: "unwanted" }, [s.realm.member.id]);
    s.ctx.events.publish(s.realm.realm.id, { type: "wanted" }, [s.realm.member.id]);
    s.ctx.events.publish(s.other.realm.id, { type: "wanted" }, [s.realm.member.id]);
    expect(await queuedEvents(s, s.realm.member, mine.queue_id)).toEqual([{ type: "wanted", id: 0 }]);
    expect(await queuedEvents(s, s.realm.other, others.queue_id)).toEqual([]);
  });

  it("long-polls until an event arrives", async () => {
    const { queue_id } = await register(s, s.realm.member);
    const poll = s.api.get(s.realm.member, "/events", { queue_id, last_event_id: -1 });
    await new Promise((r) => setTimeout(r, 50));
    s.ctx.events.publish(s.realm.realm.id, { type: "late" }, [s.realm.member.id]);
    expect(expectSuccess(await poll).events).toEqual([{ type: "late", id: 0 }]);
  });

  it("answers an idle poll with a heartbeat after longPollSeconds", async () => {
    const { queue_id } = await register(s, s.realm.member);
    const started = Date.now();
    const body = expectSuccess(await s.api.get(s.realm.member, "/events", { queue_id, last_event_id: -1 }));
    expect(body.events).toEqual([{ type: "heartbeat", id: 0 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("rejects unknown queues and other users' queues alike", async () => {
    const { queue_id } = await register(s, s.realm.member);
    for (const [user, id] of [
      [s.realm.member, "nope"],
      [s.realm.other, queue_id],
    ] as const) {
      const body = expectError(await s.api.get(user, "/events", { queue_id: id, last_event_id: -1, dont_block: true }), `Bad event queue ID: ${id}`, {
        code: "BAD_EVENT_QUEUE_ID",
      });
      expect(body.queue_id).toBe(id);
    }
  });

  it("checks queue_id and last_event_id", async () => {
    expectError(await s.api.get(s.realm.member, "/events", {}), "Missing 'queue_id' argument");
    expectError(await s.api.get(s.realm.member, "/events", { queue_id: "x" }), "Missing 'last_event_id' argument");
    expectError(await s.api.get(s.realm.member, "/events", { queue_id: "x", last_event_id: "a" }), "last_event_id is not valid JSON");
  });

  it("creates a queue for a non-blocking call without queue_id", async () => {
    const body = expectSuccess(await s.api.get(s.realm.member, "/events", { dont_block: true }));
    expect(body.events).toEqual([]);
    expect(s.ctx.eventQueues.store.get(body.queue_id)?.opts.userId).toBe(s.realm.member.id);
  });

  it("expires idle queues", async () => {
    const { queue_id } = await register(s, s.realm.member);
    const realNow = s.ctx.now;
    s.ctx.now = () => realNow() + 6_000;
    try {
      expect(s.ctx.eventQueues.gc()).toBeGreaterThan(0);
    } finally {
      s.ctx.now = realNow;
    }
    expectError(await s.api.get(s.realm.member, "/events", { queue_id, last_event_id: -1, dont_block: true }), `Bad event queue ID: ${queue_id}`, {
      code: "BAD_EVENT_QUEUE_ID",
    });
  });

  it("drops a queue that stops acknowledging past the cap", async () => {
    const { queue_id } = await register(s, s.realm.admin);
    for (let i = 0; i <= s.ctx.config.eventQueueMaxEvents; i++) s.ctx.events.publish(s.realm.realm.id, { type: "flood" }, [s.realm.admin.id]);
    expect(s.ctx.eventQueues.store.get(queue_id)).toBeUndefined();
  });
});

describe("DELETE /events", () => {
  it("removes the caller's queue", async () => {
    const { queue_id } = await register(s, s.realm.member);
    expectError(await s.api.delete(s.realm.other, "/events", { queue_id }), `Bad event queue ID: ${queue_id}`, { code: "BAD_EVENT_QUEUE_ID" });
    expect(s.ctx.eventQueues.store.get(queue_id)).toBeDefined();
    expectSuccess(await s.api.delete(s.realm.member, "/events", { queue_id }));
    expect(s.ctx.eventQueues.store.get(queue_id)).toBeUndefined();
    expectError(await s.api.delete(s.realm.member, "/events", {}), "Missing 'queue_id' argument", { code: "REQUEST_VARIABLE_MISSING" });
  });

  it("answers a waiting poll when its queue is deleted", async () => {
    const { queue_id } = await register(s, s.realm.member);
    const poll = s.api.get(s.realm.member, "/events", { queue_id, last_event_id: -1 });
    await new Promise((r) => setTimeout(r, 50));
    expectSuccess(await s.api.delete(s.realm.member, "/events", { queue_id }));
    expect(expectSuccess(await poll).events).toEqual([]);
  });
});

describe("all_public_streams queues", () => {
  const message = (id: number) => ({ type: "message", message: { id, type: "stream", display_recipient: "room", subject: "t", sender_email: "x" }, flags: ["read"] });

  it("also receive public-channel messages addressed to others, with flags []", async () => {
    const { member, other } = s.realm;
    const all = await register(s, member, { event_types: ["message"], all_public_streams: true });
    const plain = await register(s, member, { event_types: ["message"] });
    s.ctx.events.publish(s.realm.realm.id, message(9001), [other.id], { publicChannelId: 1 });
    expect(await queuedEvents(s, member, all.queue_id)).toEqual([{ ...message(9001), flags: [], id: 0 }]);
    expect(await queuedEvents(s, member, plain.queue_id)).toEqual([]);
    // Another realm's public messages never reach it.
    s.ctx.events.publish(s.other.realm.id, message(9002), [s.other.member.id], { publicChannelId: 2 });
    expect(await queuedEvents(s, member, all.queue_id, 0)).toEqual([]);
  });

  it("get a message addressed to their user once, with the user's own flags", async () => {
    const { member, other } = s.realm;
    const all = await register(s, member, { event_types: ["message"], all_public_streams: true });
    // A send publishes one event per flag group, then the all_public_streams copy.
    s.ctx.events.publish(s.realm.realm.id, { ...message(9003), flags: ["mentioned"] }, [member.id]);
    s.ctx.events.publish(s.realm.realm.id, message(9003), [other.id]);
    s.ctx.events.publish(s.realm.realm.id, { ...message(9003), flags: [] }, [], { publicChannelId: 1 });
    expect(await queuedEvents(s, member, all.queue_id)).toEqual([{ ...message(9003), flags: ["mentioned"], id: 0 }]);
  });

  it("are refused to guests", async () => {
    expectError(await s.api.post(s.realm.guest, "/register", { all_public_streams: true }), "User not authorized for this query");
    expectError(await s.api.get(s.realm.guest, "/events", { all_public_streams: true, dont_block: true }), "User not authorized for this query");
  });
});

describe("deactivation ends the user's queues", () => {
  it("answers a waiting poll with the deactivated-account error and drops the queue", async () => {
    const target = s.realm.moderator;
    const { queue_id } = await register(s, target);
    const other = await register(s, s.realm.member, { event_types: ["realm_user"] });
    const poll = s.api.get(target, "/events", { queue_id, last_event_id: -1 });
    await new Promise((r) => setTimeout(r, 50));
    expectSuccess(await s.api.delete(s.realm.admin, `/users/${target.id}`));
    expectError(await poll, "Account is deactivated", { status: 401, code: "UNAUTHORIZED" });
    expect(s.ctx.eventQueues.store.get(queue_id)).toBeUndefined();
    // Others' queues carry on.
    const seen = await queuedEvents(s, s.realm.member, other.queue_id);
    expect(seen).toEqual([{ type: "realm_user", op: "update", person: { user_id: target.id, is_active: false }, id: 0 }]);
    expectSuccess(await s.api.post(s.realm.admin, `/users/${target.id}/reactivate`));
  });
});

describe("all_public_streams end to end", () => {
  it("a real send to a public channel reaches a non-subscriber's all_public_streams queue once, with flags []", async () => {
    const { other, admin } = s.realm;
    await createChannel(s, { name: "aps end to end", subscribers: [other] });
    const secret = await createChannel(s, { name: "aps secret", invite_only: true, subscribers: [other] });
    const queue = await register(s, admin, { event_types: ["message"], all_public_streams: true });
    const sent = expectSuccess(await s.api.post(other, "/messages", { type: "stream", to: "aps end to end", topic: "t", content: "hi" }));
    expectSuccess(await s.api.post(other, "/messages", { type: "stream", to: secret.name, topic: "t", content: "private" }));
    const events = expectSuccess(await s.api.get(admin, "/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true })).events;
    const messages = events.filter((e: { type: string }) => e.type === "message");
    expect(messages.map((e: { message: { id: number } }) => e.message.id)).toEqual([sent.id]);
    expect(messages[0].flags).toEqual([]);
  });
});

describe("empty topic names in events", () => {
  it("shows realm_empty_topic_display_name unless the client has the empty_topic_name capability", async () => {
    const { other, admin } = s.realm;
    await createChannel(s, { name: "empty topics", subscribers: [other, admin] });
    const plain = await register(s, admin, { event_types: ["message"] });
    const capable = await register(s, admin, { event_types: ["message"], client_capabilities: { notification_settings_null: true, empty_topic_name: true } });
    expectSuccess(await s.api.post(other, "/messages", { type: "stream", to: "empty topics", topic: "", content: "no topic here" }));
    const subjectIn = async (queueId: string) => {
      const { events } = expectSuccess(await s.api.get(admin, "/events", { queue_id: queueId, last_event_id: -1, dont_block: true }));
      return events.filter((e: { type: string }) => e.type === "message").map((e: { message: { subject: string } }) => e.message.subject);
    };
    expect(await subjectIn(plain.queue_id)).toEqual([s.realm.realm.empty_topic_display_name]);
    expect(s.realm.realm.empty_topic_display_name).toBe("general chat");
    expect(await subjectIn(capable.queue_id)).toEqual([""]);
  });
});
