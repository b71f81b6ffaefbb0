/**
 * Regression tests of the limits (issue 8: items 2, 4, 5, 8, 9): login attempts counted
 * before the hash, event-queue caps, body size whatever the encoding, list bounds and
 * chunked SQL, strict percent-decoding.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerRoutes } from "../../src/http/rest.js";
import { route } from "../../src/http/route.js";
import { ensureRecipient, insertUserMessages, RECIPIENT_PERSONAL } from "../../src/db/queries/messages.js";
import { FLAG_BITS } from "../../src/lib/message-flags.js";
import { basicAuth, expectError, expectSuccess } from "../support/client.js";
import { chunkedRequest, listenLocally, multipartChunks } from "../support/raw-http.js";
import { OWNER_PASSWORD } from "../support/realm.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { makeChannel, messageCounts, sendChannelMessage } from "../support/messages.js";

const AUTH_FAILED = ["Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" }] as const;
const RATE_LIMITED = ["API usage exceeded rate limit", { status: 429, code: "RATE_LIMIT_HIT" }] as const;

describe("login attempts (item 2)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ loginAttemptsPer30Minutes: 5 });
  });
  afterAll(() => s.close());

  it("lets only the limit of 30 parallel wrong guesses reach the password check", async () => {
    const username = s.realm.admin.delivery_email;
    const results = await Promise.all(Array.from({ length: 30 }, () => s.api.post(null, "/fetch_api_key", { username, password: "wrong-guess" })));
    expect(results.filter((r) => r.statusCode === 401)).toHaveLength(5);
    for (const r of results.filter((r) => r.statusCode !== 401)) expectError(r, ...RATE_LIMITED);
  });

  it("19 wrong passwords and the right one in parallel: at most the limit reach the check", async () => {
    const username = s.realm.owner.delivery_email;
    const attempts = Array.from({ length: 20 }, (_, i) => (i === 19 ? OWNER_PASSWORD : `wrong-${i}`));
    const results = await Promise.all(attempts.map((password) => s.api.post(null, "/fetch_api_key", { username, password })));
    const checked = results.filter((r) => r.statusCode === 401 || r.statusCode === 200);
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.length).toBeLessThanOrEqual(5);
    for (const r of results.filter((r) => r.statusCode === 429)) expectError(r, ...RATE_LIMITED);
  });

  it("a successful login clears the count, as upstream", async () => {
    // Seeded users other than the owner have no password: give `other` the owner's.
    const username = s.realm.other.delivery_email;
    const { password_hash } = await s.db.selectFrom("users").select("password_hash").where("id", "=", s.realm.owner.id).executeTakeFirstOrThrow();
    await s.db.updateTable("users").set({ password_hash }).where("id", "=", s.realm.other.id).execute();
    for (let i = 0; i < 4; i++) expectError(await s.api.post(null, "/fetch_api_key", { username, password: "wrong" }), ...AUTH_FAILED);
    expectSuccess(await s.api.post(null, "/fetch_api_key", { username, password: OWNER_PASSWORD }));
    for (let i = 0; i < 4; i++) expectError(await s.api.post(null, "/fetch_api_key", { username, password: "wrong" }), ...AUTH_FAILED);
    expectSuccess(await s.api.post(null, "/fetch_api_key", { username, password: OWNER_PASSWORD }));
  });
});

describe("event queues (item 4)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ eventQueuesPerUser: 3, eventQueueCreationsPerMinute: 4, eventQueueMaxLifespanSeconds: 3600, eventQueueMaxEvents: 5 });
  });
  afterAll(() => s.close());

  const queuesOf = (userId: number) => [...s.ctx.eventQueues.store.forUser(userId)].length;

  it("keeps at most eventQueuesPerUser queues: the least recently polled one goes, its client learns BAD_EVENT_QUEUE_ID", async () => {
    const { member } = s.realm;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(expectSuccess(await s.api.post(member, "/register", { event_types: ["message"] })).queue_id as string);
    // Polling the first queue makes the second the least recently used.
    expectSuccess(await s.api.get(member, "/events", { queue_id: ids[0], last_event_id: -1, dont_block: true }));
    const fourth = expectSuccess(await s.api.get(member, "/events", { dont_block: true, lifespan_secs: 604800 })).queue_id as string;
    expect(queuesOf(member.id)).toBe(3);
    expectError(await s.api.get(member, "/events", { queue_id: ids[1], last_event_id: -1, dont_block: true }), `Bad event queue ID: ${ids[1]}`, {
      code: "BAD_EVENT_QUEUE_ID",
    });
    for (const id of [ids[0], ids[2], fourth]) expectSuccess(await s.api.get(member, "/events", { queue_id: id, last_event_id: -1, dont_block: true }));
  });

  it("rate-limits queue creation per user, on both ways of creating one", async () => {
    const { moderator, other } = s.realm;
    for (let i = 0; i < 2; i++) expectSuccess(await s.api.post(moderator, "/register", {}));
    for (let i = 0; i < 2; i++) expectSuccess(await s.api.get(moderator, "/events", { dont_block: true }));
    const before = s.ctx.eventQueues.store.count();
    expectError(await s.api.post(moderator, "/register", {}), ...RATE_LIMITED);
    expectError(await s.api.get(moderator, "/events", { dont_block: true }), ...RATE_LIMITED);
    expect(s.ctx.eventQueues.store.count()).toBe(before);
    // Another user is counted separately.
    expectSuccess(await s.api.post(other, "/register", {}));
  });

  it("caps the lifespan a client may ask for", async () => {
    const { admin } = s.realm;
    const { queue_id } = expectSuccess(await s.api.get(admin, "/events", { dont_block: true, lifespan_secs: 604800 }));
    expect(s.ctx.eventQueues.store.get(queue_id as string)?.opts.lifespanSeconds).toBe(3600);
    const realNow = s.ctx.now;
    const later = realNow() + 3601_000;
    s.ctx.now = () => later;
    try {
      s.ctx.eventQueues.gc();
    } finally {
      s.ctx.now = realNow;
    }
    expectError(await s.api.get(admin, "/events", { queue_id, last_event_id: -1, dont_block: true }), `Bad event queue ID: ${queue_id as string}`, {
      code: "BAD_EVENT_QUEUE_ID",
    });
  });

  it("a queue past eventQueueMaxEvents is dropped: its client's next poll gets BAD_EVENT_QUEUE_ID, no event is silently lost", async () => {
    const { owner } = s.realm;
    const { queue_id } = expectSuccess(await s.api.post(owner, "/register", {}));
    for (let i = 0; i < 5; i++) s.ctx.events.publish(s.realm.realm.id, { type: "flood", n: i }, [owner.id]);
    expect(s.ctx.eventQueues.store.get(queue_id as string)?.size).toBe(5);
    s.ctx.events.publish(s.realm.realm.id, { type: "flood", n: 5 }, [owner.id]);
    expectError(await s.api.get(owner, "/events", { queue_id, last_event_id: -1 }), `Bad event queue ID: ${queue_id as string}`, {
      code: "BAD_EVENT_QUEUE_ID",
    });
  });
});

describe("body size whatever the encoding (item 5)", () => {
  let s: TestServer;
  let port: number;
  const LIMIT = 64 * 1024;
  const UPLOAD_LIMIT = 256 * 1024;
  beforeAll(async () => {
    s = await startTestServer({ maxRequestBytes: LIMIT });
    // A route with its own, larger limit (as file uploads will have).
    registerRoutes(s.app, s.ctx, [route("POST", "/test_large_upload", async (req) => ({ bytes: req.params.get("data")?.length ?? 0 }), { maxBodyBytes: UPLOAD_LIMIT })]);
    port = await listenLocally(s.app);
  });
  afterAll(() => s.close());

  const headersFor = (contentType: string) => ({ host: s.realm.host, "content-type": contentType });
  const fields = (n: number, size: number) => Array.from({ length: n }, (_, i): [string, string] => [`f${i}`, "x".repeat(size)]);

  it("refuses chunked multipart whose fields together pass the limit, unauthenticated, with the JSON 413", async () => {
    // Each field is under the limit; together they are 5 times over it.
    const body = multipartChunks([["username", "a@example.com"], ["password", "x"], ...fields(10, 32 * 1024)]);
    const res = await chunkedRequest(port, "/api/v1/fetch_api_key", headersFor(body.contentType), body.chunks);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ result: "error", msg: "Request entity too large", code: "BAD_REQUEST" });
  });

  it("refuses a chunked urlencoded body past the limit", async () => {
    const chunks = ["username=a%40example.com&password=x", ...Array.from({ length: 10 }, () => `&pad=${"y".repeat(16 * 1024)}`)];
    const res = await chunkedRequest(port, "/api/v1/fetch_api_key", headersFor("application/x-www-form-urlencoded"), chunks);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).msg).toBe("Request entity too large");
  });

  it("accepts a chunked multipart body under the limit", async () => {
    const body = multipartChunks([["username", s.realm.owner.delivery_email], ["password", OWNER_PASSWORD], ...fields(3, 16 * 1024)]);
    const res = await chunkedRequest(port, "/api/v1/fetch_api_key", headersFor(body.contentType), body.chunks);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).api_key).toBe(s.realm.owner.api_key);
  });

  it("a route's own limit replaces the default, for multipart and urlencoded bodies", async () => {
    const auth = { authorization: basicAuth(s.realm.member) };
    const big = "z".repeat(200 * 1024);
    const multipart = multipartChunks([["data", big]]);
    const ok = await chunkedRequest(port, "/api/v1/test_large_upload", { ...headersFor(multipart.contentType), ...auth }, multipart.chunks);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).bytes).toBe(big.length);
    const form = await chunkedRequest(port, "/api/v1/test_large_upload", { ...headersFor("application/x-www-form-urlencoded"), ...auth }, [`data=${big}`]);
    expect(form.status).toBe(200);
    const tooBig = multipartChunks([["data", "z".repeat(300 * 1024)]]);
    const refused = await chunkedRequest(port, "/api/v1/test_large_upload", { ...headersFor(tooBig.contentType), ...auth }, tooBig.chunks);
    expect(refused.status).toBe(413);
    // Elsewhere the default still holds.
    const elsewhere = await chunkedRequest(port, "/api/v1/users/me/presence", { ...headersFor(multipart.contentType), ...auth }, multipartChunks([["status", big]]).chunks);
    expect(elsewhere.status).toBe(413);
  });
});

describe("large inputs (item 8)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  /** `n` direct messages from the member to themself, inserted directly (sending tens of thousands through the API is too slow). */
  async function seedOwnMessages(n: number): Promise<number[]> {
    const { member } = s.realm;
    const recipientId = await ensureRecipient(s.db, member.realm_id, RECIPIENT_PERSONAL, member.id);
    const ids: number[] = [];
    for (let start = 0; start < n; start += 500) {
      const rows = Array.from({ length: Math.min(500, n - start) }, (_, i) => ({
        realm_id: member.realm_id,
        sender_id: member.id,
        recipient_id: recipientId,
        content: `note ${start + i}`,
        rendered_content: `<p>note ${start + i}</p>`,
        date_sent: 1_700_000_000,
      }));
      const inserted = await s.db.insertInto("messages").values(rows).returning("id").execute();
      ids.push(...inserted.map((r) => r.id));
    }
    await insertUserMessages(s.db, ids.map((message_id) => ({ realm_id: member.realm_id, user_id: member.id, message_id, flags: FLAG_BITS.read })));
    return ids;
  }

  it("POST /messages/flags on 66,000 messages works (past both databases' bound-variable limits)", async () => {
    const ids = await seedOwnMessages(66_000);
    const res = await s.api.post(s.realm.member, "/messages/flags", { messages: ids, op: "add", flag: "starred" });
    expect(expectSuccess(res).messages).toHaveLength(ids.length);
    const rows = await s.db.selectFrom("user_messages").select("flags").where("user_id", "=", s.realm.member.id).execute();
    expect(rows.filter((r) => (r.flags & FLAG_BITS.starred) !== 0)).toHaveLength(ids.length);
    // And back: marking them unread exercises the unread-details queries on the same list.
    expectSuccess(await s.api.post(s.realm.member, "/messages/flags", { messages: ids, op: "remove", flag: "read" }));
  }, 120_000);

  it("renaming a topic of 9,000 messages works (the per-message writes run in chunks)", async () => {
    const { owner, member } = s.realm;
    const channel = await makeChannel(s, "bulk", { subscribers: [owner, member] });
    const first = await sendChannelMessage(s, owner, "bulk", "big topic", "first");
    for (let start = 0; start < 9_000; start += 500) {
      const rows = Array.from({ length: 500 }, (_, i) => ({
        realm_id: owner.realm_id,
        sender_id: owner.id,
        recipient_id: channel.recipient_id,
        channel_id: channel.id,
        topic: "big topic",
        content: `m ${start + i}`,
        rendered_content: `<p>m ${start + i}</p>`,
        date_sent: 1_700_000_000,
      }));
      const ids = (await s.db.insertInto("messages").values(rows).returning("id").execute()).map((r) => r.id);
      await insertUserMessages(s.db, ids.flatMap((message_id) => [owner, member].map((u) => ({ realm_id: u.realm_id, user_id: u.id, message_id, flags: 0 }))));
    }
    expectSuccess(await s.api.patch(owner, `/messages/${first}`, { topic: "renamed", propagate_mode: "change_all", send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
    const moved = await s.db.selectFrom("messages").select("id").where("channel_id", "=", channel.id).where("topic", "=", "renamed").execute();
    expect(moved).toHaveLength(9_001);
  }, 120_000);

  it("refuses more message ids than the bound, changing nothing", async () => {
    const ids = Array.from({ length: 100_001 }, (_, i) => i + 1);
    const before = await messageCounts(s);
    expectError(await s.api.post(s.realm.member, "/messages/flags", { messages: ids, op: "add", flag: "starred" }), "messages is too long (limit: 100000 items)");
    expect(await messageCounts(s)).toEqual(before);
  });

  it("bounds every other list parameter (1,000 items)", async () => {
    const many = Array.from({ length: 1001 }, (_, i) => i + 1);
    const { member, owner } = s.realm;
    expectError(await s.api.get(member, "/users", { user_ids: many }), "user_ids is too long (limit: 1000 items)");
    expectError(await s.api.post(member, "/typing", { op: "start", to: many }), "to is too long (limit: 1000 items)");
    expectError(await s.api.post(member, "/messages", { type: "direct", to: many, content: "hi" }), "to is too long (limit: 1000 items)");
    expectError(await s.api.post(member, "/register", { event_types: many.map(String) }), "event_types is too long (limit: 1000 items)");
    expectError(await s.api.patch(owner, "/realm/linkifiers", { ordered_linkifier_ids: many }), "ordered_linkifier_ids is too long (limit: 1000 items)");
    expectError(
      await s.api.post(member, "/users/me/subscriptions", { subscriptions: many.map((i) => ({ name: `c${i}` })) }),
      "subscriptions is too long (limit: 1000 items)",
    );
    expectError(await s.api.patch(member, "/users/me/profile_data", { data: many.map((id) => ({ id, value: "x" })) }), "data is too long (limit: 1000 items)");
    expectError(
      await s.api.get(member, "/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow: [{ operator: "dm", operand: many }] }),
      'narrow[0]["operand"] is too long (limit: 1000 items)',
    );
  });

  it("a search narrow of 1,000 words gets a clear 400; 100 words and 50 terms still work", async () => {
    const { member } = s.realm;
    const fetch = (narrow: unknown) => s.api.get(member, "/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow });
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");
    expectError(await fetch([{ operator: "search", operand: words(1000) }]), "Search is too long (limit: 100 words)", { code: "BAD_NARROW" });
    // The bound counts every search term of the narrow together.
    expectError(await fetch([{ operator: "search", operand: words(60) }, { operator: "search", operand: words(60) }]), "Search is too long (limit: 100 words)", {
      code: "BAD_NARROW",
    });
    expectSuccess(await fetch([{ operator: "search", operand: words(100) }]));
    const terms = Array.from({ length: 50 }, (_, i) => ({ operator: "search", operand: words(2).replace(/word/g, `w${i}x`) }));
    expectSuccess(await fetch(terms));
    expectError(await fetch([...terms, { operator: "is", operand: "starred" }]), "narrow is too long (limit: 50 items)");
  });
});

describe("undecodable percent-encoding (item 9)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  const raw = (method: "GET" | "POST", url: string, payload?: string | Buffer) =>
    s.app.inject({
      method,
      url,
      headers: { host: s.realm.host, authorization: basicAuth(s.realm.member), "content-type": "application/x-www-form-urlencoded" },
      payload,
    });

  it("refuses a form body whose %XX bytes are not UTF-8, storing nothing", async () => {
    const before = await messageCounts(s);
    const res = await raw("POST", "/api/v1/messages", `type=direct&to=${encodeURIComponent(JSON.stringify([s.realm.member.id]))}&content=a%FF%FEb`);
    expectError(res, "Invalid UTF-8 or percent-encoding in the request body");
    expect(await messageCounts(s)).toEqual(before);
    // Malformed escapes and raw non-UTF-8 bytes are refused the same way.
    expectError(await raw("POST", "/api/v1/messages", "type=direct&to=%5B1%5D&content=100%"), "Invalid UTF-8 or percent-encoding in the request body");
    expectError(await raw("POST", "/api/v1/messages", Buffer.from([0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x3d, 0xff])), "Invalid UTF-8 or percent-encoding in the request body");
    expect(await messageCounts(s)).toEqual(before);
  });

  it("refuses an undecodable query string", async () => {
    expectError(await raw("GET", "/api/v1/users/me?client=%FF"), "Invalid UTF-8 or percent-encoding in the query string");
    expectError(await raw("GET", "/api/v1/users/me?client=%E2%82"), "Invalid UTF-8 or percent-encoding in the query string");
  });

  it("still decodes valid bodies: + as space, UTF-8 escapes, repeated names (the last wins)", async () => {
    const res = await raw("POST", "/api/v1/messages", `type=direct&to=%5B${s.realm.member.id}%5D&content=ignored&content=caf%C3%A9+au+lait`);
    const { id } = expectSuccess(res);
    const row = await s.db.selectFrom("messages").select("content").where("id", "=", id as number).executeTakeFirstOrThrow();
    expect(row.content).toBe("café au lait");
  });
});
