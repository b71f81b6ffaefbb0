/**
 * Limits under attack: concurrent attempts against every rate limit (login lock-out, the
 * per-user API limit, queue creation), per-user resource caps (event queues, queue size),
 * and the body limit under chunked encoding on a real socket.
 */
import type { FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectSuccess } from "../support/client.js";
import { chunkedRequest, listenLocally, multipartChunks } from "../support/raw-http.js";
import { OWNER_PASSWORD } from "../support/realm.js";
import { startTestServer, type TestServer } from "../support/server.js";

const RATE_LIMITED = ["API usage exceeded rate limit", { status: 429, code: "RATE_LIMIT_HIT" }] as const;

describe("concurrent attempts against every limit", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ loginAttemptsPer30Minutes: 5, rateLimitPerMinute: 10, eventQueueCreationsPerMinute: 6, eventQueuesPerUser: 100 });
  });
  afterAll(() => s.close());

  it("login lock-out: of 40 parallel guesses on two usernames, exactly 5 per username reach the password check", async () => {
    const names = [s.realm.owner.delivery_email, "nobody@example.com"];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => s.api.post(null, "/fetch_api_key", { username: names[i % 2], password: `guess-${i}` })),
    );
    for (const [n, name] of names.entries()) {
      const mine = results.filter((_, i) => i % 2 === n);
      expect(mine.filter((r) => r.statusCode === 401), name).toHaveLength(5);
      for (const r of mine.filter((r) => r.statusCode !== 401)) expectError(r, ...RATE_LIMITED);
    }
    // Locked out now, even with the right password.
    expectError(await s.api.post(null, "/fetch_api_key", { username: names[0], password: OWNER_PASSWORD }), ...RATE_LIMITED);
  });

  it("API rate limit: of 30 parallel requests exactly the limit succeed", async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => s.api.get(s.realm.member, "/users/me")));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(10);
    for (const r of results.filter((r) => r.statusCode !== 200)) expectError(r, ...RATE_LIMITED);
  });

  it("queue creation: of 20 parallel creations exactly the limit create a queue", async () => {
    const { moderator } = s.realm;
    // Long-poll creations are exempt from the API limit but not from the queue-creation limit.
    const results = await Promise.all(Array.from({ length: 20 }, () => s.api.get(moderator, "/events", { dont_block: true, lifespan_secs: 604800 })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(6);
    for (const r of results.filter((r) => r.statusCode !== 200)) expectError(r, ...RATE_LIMITED);
    expect([...s.ctx.eventQueues.store.forUser(moderator.id)]).toHaveLength(6);
  });
});

describe("per-user resource caps", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ eventQueuesPerUser: 20, eventQueueMaxEvents: 50 });
  });
  afterAll(() => s.close());

  it("a loop creating 500 queues leaves the user 20; an event is copied into at most 20 queues", async () => {
    const { member } = s.realm;
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) ids.push(expectSuccess(await s.api.get(member, "/events", { dont_block: true, lifespan_secs: 604800 })).queue_id as string);
    const held = [...s.ctx.eventQueues.store.forUser(member.id)];
    expect(held).toHaveLength(20);
    // The survivors are the newest ones.
    expect(held.map((q) => q.id).sort()).toEqual(ids.slice(-20).sort());
    s.ctx.events.publish(s.realm.realm.id, { type: "probe" }, [member.id]);
    expect(held.reduce((n, q) => n + q.size, 0)).toBe(20);
  });

  it("a queue nobody reads holds at most eventQueueMaxEvents, then its client must re-register", async () => {
    const { other } = s.realm;
    const { queue_id } = expectSuccess(await s.api.post(other, "/register", {}));
    for (let i = 0; i < 500; i++) s.ctx.events.publish(s.realm.realm.id, { type: "probe", i }, [other.id]);
    expect(s.ctx.eventQueues.store.get(queue_id as string)).toBeUndefined();
    expectError(await s.api.get(other, "/events", { queue_id, last_event_id: -1, dont_block: true }), `Bad event queue ID: ${queue_id as string}`, {
      code: "BAD_EVENT_QUEUE_ID",
    });
  });
});

describe("body limit under chunked encoding, on a real socket", () => {
  let s: TestServer;
  let port: number;
  const LIMIT = 256 * 1024;
  /** Bytes of field values the multipart parser handed over, per refused request. */
  const parsedBytes: number[] = [];
  beforeAll(async () => {
    s = await startTestServer({ maxRequestBytes: LIMIT, loginAttemptsPer30Minutes: 5 });
    s.app.addHook("onError", async (request: FastifyRequest) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      parsedBytes.push(Object.values(body).reduce((n: number, v) => n + (typeof v === "string" ? v.length : 0), 0));
    });
    port = await listenLocally(s.app);
  });
  afterAll(() => s.close());

  it("four parallel unauthenticated chunked multipart bodies of 100 fields × 64 KiB each get the JSON 413; parsers never see more than the limit", async () => {
    const field = "x".repeat(64 * 1024);
    const send = () => {
      const body = multipartChunks(
        (function* () {
          yield ["username", s.realm.owner.delivery_email] as [string, string];
          yield ["password", OWNER_PASSWORD] as [string, string];
          for (let i = 0; i < 100; i++) yield [`f${i}`, field] as [string, string];
        })(),
      );
      return chunkedRequest(port, "/api/v1/fetch_api_key", { host: s.realm.host, "content-type": body.contentType }, body.chunks);
    };
    const results = await Promise.all([send(), send(), send(), send()]);
    for (const r of results) {
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body)).toEqual({ result: "error", msg: "Request entity too large", code: "BAD_REQUEST" });
    }
    for (const n of parsedBytes) expect(n).toBeLessThanOrEqual(LIMIT);
    // The view never ran: the right password in those bodies did not count as a login attempt.
    const ok = await chunkedRequest(port, "/api/v1/fetch_api_key", { host: s.realm.host, "content-type": "application/x-www-form-urlencoded" }, [
      `username=${encodeURIComponent(s.realm.owner.delivery_email)}&password=${encodeURIComponent(OWNER_PASSWORD)}`,
    ]);
    expect(ok.status).toBe(200);
  });

  it("chunked urlencoded and unknown-type bodies past the limit get the JSON 413 too", async () => {
    const pad = "p".repeat(32 * 1024);
    for (const contentType of ["application/x-www-form-urlencoded", "application/json", "text/plain"]) {
      const res = await chunkedRequest(port, "/api/v1/server_settings", { host: s.realm.host, "content-type": contentType }, Array.from({ length: 20 }, () => pad));
      expect(res.status, contentType).toBe(413);
      expect(JSON.parse(res.body).msg).toBe("Request entity too large");
    }
  });
});
