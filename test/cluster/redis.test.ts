/**
 * The Redis parts of a cluster on a real Redis (TEST_REDIS_URL), each test under a key
 * prefix of its own: the shared rate limiter and the event stream between nodes.
 */
import crypto from "node:crypto";
import { Redis, type RedisOptions } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RedisEventBus } from "../../src/cluster/redis-bus.js";
import { RedisRateLimiter } from "../../src/cluster/redis-rate-limiter.js";
import type { Change } from "../../src/caches/change.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

const url = process.env.TEST_REDIS_URL;
const connections: Redis[] = [];
const connect = (opts: RedisOptions = {}) => {
  const c = new Redis(url!, { maxRetriesPerRequest: null, ...opts });
  connections.push(c);
  return c;
};
const prefix = () => `parley-test-${crypto.randomBytes(4).toString("hex")}:`;

afterAll(async () => {
  await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
});

describe.skipIf(!url)("shared rate limits", () => {
  it("let exactly the allowed number through when nodes count at once", async () => {
    const keys = prefix();
    const nodes = [0, 1, 2].map(() => new RedisRateLimiter(connect(), keys, () => Date.now()));
    const rule = { seconds: 60, max: 5 };
    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => nodes[i % 3].hit("login:someone", rule)));
    expect(decisions.filter((d) => d.retryAfter === 0)).toHaveLength(5);
    const refused = decisions.find((d) => d.retryAfter > 0)!;
    expect(refused).toMatchObject({ limit: 5, remaining: 0 });
    expect(refused.retryAfter).toBeGreaterThan(59);
    expect(refused.reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 59);
    // A successful login on any node clears the count for all.
    await nodes[1].clear("login:someone");
    expect((await nodes[2].hit("login:someone", rule)).remaining).toBe(4);
  });

  it("answer 503 while Redis cannot be reached, never an unchecked pass", async () => {
    const limiter = new RedisRateLimiter(connect({ enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, port: 1, host: "127.0.0.1", retryStrategy: () => null }), prefix(), () => Date.now());
    await expect(limiter.hit("api:1", { seconds: 60, max: 200 })).rejects.toMatchObject({ httpStatus: 503, code: "SERVICE_UNAVAILABLE" });
  });
});

describe.skipIf(!url)("the event stream between nodes", () => {
  const event = (n: number): PublishedEvent => ({ realmId: 1, event: { type: "typing", op: "start", n }, userIds: [7] });

  function node(name: string, keys: string, log: { changes: Change[]; gaps: number }) {
    return new RedisEventBus(name, keys, connect(), connect(), {
      onChange: (c) => log.changes.push(c),
      onGap: () => log.gaps++,
      onError: () => undefined,
    });
  }

  it("delivers each node's events to every node once, in order, and cache changes to the others", async () => {
    const keys = prefix();
    const logA = { changes: [] as Change[], gaps: 0 };
    const logB = { changes: [] as Change[], gaps: 0 };
    const a = node("a", keys, logA);
    const b = node("b", keys, logB);
    await a.start();
    await b.start();
    const seenA: unknown[] = [];
    const seenB: unknown[] = [];
    a.subscribe((p) => seenA.push(p.event.n));
    b.subscribe((p) => seenB.push(p.event.n));
    for (let n = 0; n < 5; n++) a.publish(1, event(n).event, [7]);
    b.publish(1, event(5).event, [7]);
    a.publishChange({ kind: "user", realmId: 1, userId: 7 });
    for (let i = 0; i < 100 && (seenB.length < 6 || seenA.length < 6 || logB.changes.length < 1); i++) await new Promise((r) => setTimeout(r, 20));
    expect(seenA).toEqual([0, 1, 2, 3, 4, 5]);
    expect(seenB.slice(0, 1)).toEqual([5]);
    expect([...seenB].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(seenB.filter((n) => n !== 5)).toEqual([0, 1, 2, 3, 4]);
    expect(logB.changes).toEqual([{ kind: "user", realmId: 1, userId: 7 }]);
    expect(logA.changes).toEqual([]);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("reports a gap when entries a node had not read were trimmed away", async () => {
    const keys = prefix();
    const writer = connect();
    const first = await writer.xadd(`${keys}events`, "*", "e", JSON.stringify({ node: "x", event: event(0) }));
    for (let n = 1; n < 4; n++) await writer.xadd(`${keys}events`, "*", "e", JSON.stringify({ node: "x", event: event(n) }));
    await writer.xtrim(`${keys}events`, "MAXLEN", 1);
    const log = { changes: [] as Change[], gaps: 0 };
    const late = node("late", keys, log);
    await late.start(first!);
    for (let i = 0; i < 100 && log.gaps === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(log.gaps).toBe(1);
    await late.stop();
    // A node that read everything kept sees no gap.
    const log2 = { changes: [] as Change[], gaps: 0 };
    const current = node("current", keys, log2);
    const [[newest]] = (await writer.xrevrange(`${keys}events`, "+", "-", "COUNT", 1)) as Array<[string, string[]]>;
    await current.start(newest);
    await new Promise((r) => setTimeout(r, 200));
    expect(log2.gaps).toBe(0);
    await current.stop();
  });

  it("skips an entry written twice and reports a gap in a node's numbering", async () => {
    const keys = prefix();
    const writer = connect();
    const log = { changes: [] as Change[], gaps: 0 };
    const reader = node("reader", keys, log);
    await reader.start();
    const seen: unknown[] = [];
    reader.subscribe((p) => seen.push(p.event.n));
    const add = (seq: number, n: number) => writer.xadd(`${keys}events`, "*", "e", JSON.stringify({ node: "x", seq, event: event(n) }));
    // Sent again after a reconnect (Redis had run it before failing): delivered once.
    await add(1, 0);
    await add(2, 1);
    await add(2, 1);
    for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([0, 1]);
    expect(log.gaps).toBe(0);
    // Entry 3 was lost (a Redis that crashed before anyone read it): a gap, never silence.
    await add(4, 3);
    for (let i = 0; i < 100 && log.gaps === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(log.gaps).toBe(1);
    expect(seen).toEqual([0, 1, 3]);
    await reader.stop();
  });
});
