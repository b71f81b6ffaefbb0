import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { queuedEvents, register } from "../support/events.js";
import { MAX_QUEUED_EVENTS } from "../../src/events/queues.js";

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
    for (let i = 0; i <= MAX_QUEUED_EVENTS; i++) s.ctx.events.publish(s.realm.realm.id, { type: "flood" }, [s.realm.admin.id]);
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
