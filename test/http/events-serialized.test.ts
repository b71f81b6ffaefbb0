/**
 * GET /events answers with pre-serialized bytes: each shared shaped event is serialized
 * once and every queue's own event id is spliced in. The bytes must be exactly the JSON
 * of the events as objects (ids included, id the last key), for queues of every shape.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { User } from "../../src/db/schema.js";
import { eventsJson, SharedEvent } from "../../src/events/shared-event.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess, type Params } from "../support/client.js";
import { register } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import { basicAuth } from "../support/client.js";
import { listenLocally } from "../support/raw-http.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ longPollSeconds: 5 });
});
afterAll(() => s.close());

const MODERN = { notification_settings_null: true, empty_topic_name: true };

/** The raw body of a poll, checked against the JSON of the queue's events as objects. */
async function pollBody(user: User, queueId: string, lastEventId: number, dontBlock = true): Promise<{ raw: string; events: Array<Record<string, any>> }> {
  const res = await s.api.get(user, "/events", { queue_id: queueId, last_event_id: lastEventId, dont_block: dontBlock });
  const events = expectSuccess(res).events as Array<Record<string, any>>;
  return { raw: res.body, events };
}

/** What the queue holds, as objects (the pre-serialization path: a copy with the queue's id). */
const queuedObjects = (queueId: string) => s.ctx.eventQueues.store.get(queueId)!.contents();

describe("pre-serialized GET /events bodies", () => {
  it("equal the JSON of each queue's events, for queues of different shapes and ids", async () => {
    const { member, other, admin } = s.realm;
    await createChannel(s, { name: "bytes", subscribers: [member, other] });
    const queues: Array<{ user: User; params: Params; queueId?: string; last?: number }> = [
      { user: member, params: { event_types: ["message", "presence"], apply_markdown: true, client_capabilities: MODERN } },
      { user: member, params: { event_types: ["message"], apply_markdown: false, client_hashavatar: true } },
      { user: other, params: { event_types: ["message", "presence"], slim_presence: true } },
      { user: other, params: { event_types: ["message", "presence"], apply_markdown: true, client_capabilities: { ...MODERN, simplified_presence_events: true } } },
      { user: admin, params: { event_types: ["message"], all_public_streams: true, apply_markdown: true } },
    ];
    for (const q of queues) {
      const body = await register(s, q.user, q.params);
      q.queueId = body.queue_id;
      q.last = body.last_event_id;
    }
    // Earlier events acknowledged by some queues only: the ids differ from queue to queue.
    expectSuccess(await s.api.post(member, "/messages", { type: "stream", to: "bytes", topic: "warm", content: "first" }));
    for (const q of queues.slice(0, 2)) {
      const { events } = await pollBody(q.user, q.queueId!, q.last!);
      q.last = events[events.length - 1].id;
    }
    // The sender's own queue (read below through the queue manager: upstream's schema has
    // no local_message_id, so the contract check refuses it over HTTP).
    const sender = await register(s, member, { event_types: ["message"], apply_markdown: true });
    const sent = expectSuccess(
      await s.api.post(member, "/messages", { type: "stream", to: "bytes", topic: "", content: "**bold** :smile:", queue_id: sender.queue_id, local_id: "local-1" }),
    );
    expectSuccess(await s.api.post(other, "/users/me/presence", { status: "active", new_user_input: true }));

    const firstIds = new Set<number>();
    for (const q of queues) {
      const expected = queuedObjects(q.queueId!).filter((e) => e.id > q.last!);
      firstIds.add(expected[0].id);
      const { raw, events } = await pollBody(q.user, q.queueId!, q.last!);
      expect(raw).toBe(JSON.stringify({ result: "success", msg: "", events: expected }) + "\n");
      const messages = events.filter((e) => e.type === "message");
      expect(messages.at(-1)!.message.id).toBe(sent.id);
      expect(events.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    }
    const lastMessage = (i: number) => queuedObjects(queues[i].queueId!).filter((e) => e.type === "message").at(-1)! as Record<string, any>;
    // Shaping per queue: the sender's own queue alone echoes local_message_id.
    const own = await s.ctx.eventQueues.poll({ userId: member.id, queueId: sender.queue_id, lastEventId: sender.last_event_id, dontBlock: true });
    expect(own.events().map((e) => e.local_message_id)).toEqual(["local-1"]);
    expect(own.json().toString()).toBe(`"events":${JSON.stringify(queuedObjects(sender.queue_id))}`);
    expect(queues.map((_, i) => lastMessage(i).local_message_id)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(lastMessage(0).message.content).toContain("<strong>bold</strong>");
    expect(lastMessage(1).message.content).toBe("**bold** :smile:");
    expect(lastMessage(0).message.subject).toBe("");
    expect(lastMessage(2).message.subject).toBe("general chat");
    expect(lastMessage(4).flags).toEqual([]);
    // The polls start at different ids: two queues acknowledged the first message.
    expect(firstIds.size).toBeGreaterThan(1);
  });

  it("answers a waiting poll with the same bytes as the objects", async () => {
    const { member, other } = s.realm;
    const body = await register(s, other, { event_types: ["message"], apply_markdown: false });
    const waiting = pollBody(other, body.queue_id, body.last_event_id, false);
    await new Promise((r) => setTimeout(r, 50));
    expectSuccess(await s.api.post(member, "/messages", { type: "direct", to: JSON.stringify([other.id]), content: "hi *there*" }));
    const { raw, events } = await waiting;
    expect(events).toHaveLength(1);
    expect(events[0].message.content).toBe("hi *there*");
    expect(raw).toBe(JSON.stringify({ result: "success", msg: "", events: queuedObjects(body.queue_id) }) + "\n");
  });
});

describe("a waiting poll whose client goes away", () => {
  it("stops waiting when its socket closes, and the queue keeps its events for the next poll", async () => {
    const { member, other } = s.realm;
    const body = await register(s, other, { event_types: ["message"] });
    const queue = s.ctx.eventQueues.store.get(body.queue_id)!;
    const port = await listenLocally(s.app);
    const socket = net.connect({ host: "127.0.0.1", port });
    await new Promise((r) => socket.once("connect", r));
    socket.write(
      `GET /api/v1/events?queue_id=${body.queue_id}&last_event_id=-1 HTTP/1.1\r\nHost: ${s.api.hosts.get(other.realm_id)}\r\nAuthorization: ${basicAuth(other)}\r\n\r\n`,
    );
    await vi.waitFor(() => expect(queue.waiter).not.toBeNull());
    socket.destroy();
    await vi.waitFor(() => expect(queue.waiter).toBeNull());
    expectSuccess(await s.api.post(member, "/messages", { type: "direct", to: JSON.stringify([other.id]), content: "after" }));
    const { events } = await pollBody(other, body.queue_id, -1);
    expect(events.map((e) => e.message.content)).toEqual(["after"]);
  });
});

describe("eventsJson", () => {
  it("splices ids into shared bytes exactly as JSON.stringify of the copies, even for events with an id of their own", () => {
    const shared = [
      new SharedEvent({ type: "heartbeat" }),
      new SharedEvent({ type: "x", id: 99, nested: { id: 1, text: "é \u2028 \"q\"" } }),
      new SharedEvent({ type: "message", message: { content: "ü" }, flags: ["read"], skipped: undefined }),
    ];
    const json = eventsJson(shared, 41).toString();
    expect(json).toBe(`"events":${JSON.stringify(shared.map((e, i) => ({ ...e.event, id: 41 + i })))}`);
    expect(eventsJson([], 0).toString()).toBe('"events":[]');
  });
});
