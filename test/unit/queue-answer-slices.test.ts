/**
 * A published event is queued for every recipient at once; their waiting polls are answered
 * afterwards, a slice per event-loop turn, so the sender's response and other requests do
 * not wait for thousands of socket writes.
 */
import { describe, expect, it } from "vitest";
import { InProcessEventBus } from "../../src/events/publisher.js";
import { QueueManager, type EventQueue, type PolledEvents } from "../../src/events/queues.js";
import { queueOptions } from "../support/queue-options.js";

const CONFIG = { longPollSeconds: 60, eventQueueIdleSeconds: 600, eventQueuesPerUser: 10, eventQueueMaxLifespanSeconds: 3600, eventQueueMaxEvents: 1000 };
const REALM = 1;

function setup(users: number) {
  const events = new InProcessEventBus();
  const manager = new QueueManager({ config: CONFIG, events, now: () => Date.now() });
  manager.start();
  const answered: Array<{ queue: EventQueue; events: PolledEvents }> = [];
  const queues = Array.from({ length: users }, (_, i) => {
    const queue = manager.allocate(queueOptions(i + 1, REALM));
    const now = manager.pollOrWait(
      { userId: i + 1, queueId: queue.id, lastEventId: -1, dontBlock: false },
      { answer: (polled) => answered.push({ queue, events: polled }), fail: (err) => { throw err; } },
    );
    expect(now).toBeNull();
    return queue;
  });
  return { events, manager, queues, answered };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("answering waiting polls after a publish", () => {
  it("queues the event for every recipient at once and answers the polls in later turns", async () => {
    const { events, manager, queues, answered } = setup(1000);
    const userIds = queues.map((q) => q.opts.userId);
    events.publish(REALM, { type: "custom_profile_fields", fields: [] }, userIds);
    // In the publishing turn: every queue holds the event, no poll is answered yet.
    expect(queues.every((q) => q.size === 1)).toBe(true);
    expect(answered).toHaveLength(0);
    // Later turns answer them a slice at a time; another turn's work runs in between.
    let interleaved = -1;
    setImmediate(() => (interleaved = answered.length));
    for (let turn = 0; turn < 20 && answered.length < queues.length; turn++) await nextTurn();
    expect(interleaved).toBeGreaterThan(0);
    expect(interleaved).toBeLessThan(queues.length);
    expect(answered).toHaveLength(queues.length);
    expect(new Set(answered.map((a) => a.queue))).toEqual(new Set(queues));
    for (const a of answered) expect(a.events.events()).toEqual([{ type: "custom_profile_fields", fields: [], id: 0 }]);
    manager.stop();
  });

  it("answers a poll once with every event published before its turn came", async () => {
    const { events, manager, queues, answered } = setup(3);
    const userIds = queues.map((q) => q.opts.userId);
    events.publish(REALM, { type: "custom_profile_fields", fields: [] }, userIds);
    events.publish(REALM, { type: "heartbeat" }, userIds);
    await nextTurn();
    expect(answered).toHaveLength(3);
    for (const a of answered) expect(a.events.events().map((e) => e.id)).toEqual([0, 1]);
    manager.stop();
  });

  it("answers a poll that a newer poll replaced only once, with what it had", async () => {
    const { events, manager, queues, answered } = setup(1);
    const [queue] = queues;
    events.publish(REALM, { type: "heartbeat" }, [queue.opts.userId]);
    // The client polls again (acknowledging nothing) before the scheduled answer: the old
    // poll is answered now, the new one returns the queued event at once.
    const again = manager.pollOrWait({ userId: queue.opts.userId, queueId: queue.id, lastEventId: -1, dontBlock: false }, { answer: () => expect.fail("answered twice"), fail: (err) => { throw err; } });
    expect(answered).toHaveLength(1);
    expect(again?.events().map((e) => e.id)).toEqual([0]);
    await nextTurn();
    expect(answered).toHaveLength(1);
    manager.stop();
  });

  it("answers the polls still waiting when the manager stops", () => {
    const { events, manager, queues, answered } = setup(500);
    events.publish(REALM, { type: "heartbeat" }, queues.map((q) => q.opts.userId));
    manager.stop();
    expect(answered).toHaveLength(500);
  });
});
