/**
 * A waiting GET /events is answered on Node's response directly (src/http/long-poll-reply.ts),
 * not through Fastify's send: over a real socket its answer has the same status, headers and
 * envelope as an immediate one, keep-alive and Connection: close behave as HTTP says, and
 * errors keep their envelope.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { User } from "../../src/db/schema.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { basicAuth, expectSuccess } from "../support/client.js";
import { register } from "../support/events.js";
import { listenLocally } from "../support/raw-http.js";

let s: TestServer;
let port: number;
beforeAll(async () => {
  s = await startTestServer({ longPollSeconds: 5 });
  port = await listenLocally(s.app);
});
afterAll(() => s.close());

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** One keep-alive connection reading whole responses (headers and Content-Length body). */
class Connection {
  closed = false;
  private socket: net.Socket;
  private pending = Buffer.alloc(0);
  private waiting: Array<(a: Answer) => void> = [];

  constructor() {
    this.socket = net.connect({ host: "127.0.0.1", port });
    this.socket.on("data", (chunk: Buffer) => this.read(chunk));
    this.socket.on("close", () => (this.closed = true));
  }

  get(user: User, path: string, extraHeaders = ""): Promise<Answer> {
    const answer = new Promise<Answer>((resolve) => this.waiting.push(resolve));
    this.socket.write(`GET /api/v1${path} HTTP/1.1\r\nHost: ${s.realm.host}\r\nAuthorization: ${basicAuth(user)}\r\n${extraHeaders}\r\n`);
    return answer;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      const headerEnd = this.pending.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const lines = this.pending.subarray(0, headerEnd).toString("latin1").split("\r\n");
      const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      const end = headerEnd + 4 + Number(headers.get("content-length") ?? 0);
      if (this.pending.length < end) return;
      const body = this.pending.subarray(headerEnd + 4, end).toString("utf8");
      this.pending = this.pending.subarray(end);
      this.waiting.shift()!({ status: Number(lines[0].slice(9, 12)), headers, body });
    }
  }
}

const eventsPath = (queueId: string, lastEventId: number, extra = "") => `/events?queue_id=${queueId}&last_event_id=${lastEventId}${extra}`;
const waitingOn = (queueId: string) => vi.waitFor(() => expect(s.ctx.eventQueues.store.get(queueId)!.waiter).not.toBeNull());
/** Headers that may differ between two answers of the same kind. */
const sameKind = (a: Answer) => [...a.headers.keys()].filter((k) => k !== "date" && k !== "content-length").sort();

describe("a waiting GET /events answered on Node's response", () => {
  it("has the headers and envelope of an immediate answer, ignored parameters included, and keeps the connection", async () => {
    const { member, other } = s.realm;
    const reg = await register(s, other, { event_types: ["message"] });
    const conn = new Connection();
    const waiting = conn.get(other, eventsPath(reg.queue_id, reg.last_event_id, "&unknown_thing=1"));
    await waitingOn(reg.queue_id);
    expectSuccess(await s.api.post(member, "/messages", { type: "direct", to: JSON.stringify([other.id]), content: "héllo ✓" }));
    const answer = await waiting;
    expect(answer.status).toBe(200);
    const events = s.ctx.eventQueues.store.get(reg.queue_id)!.contents();
    expect(answer.body).toBe(JSON.stringify({ result: "success", msg: "", events, ignored_parameters_unsupported: ["unknown_thing"] }) + "\n");
    expect(Number(answer.headers.get("content-length"))).toBe(Buffer.byteLength(answer.body));
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("cache-control")).toBe("no-store, no-cache, must-revalidate, max-age=0");
    expect(answer.headers.get("connection")).toBe("keep-alive");
    // The same connection serves the next request: an immediate answer, with the same headers.
    const immediate = await conn.get(other, eventsPath(reg.queue_id, events[0].id, "&dont_block=true&unknown_thing=1"));
    expect(immediate.status).toBe(200);
    expect(sameKind(immediate)).toEqual(sameKind(answer));
    expect(conn.closed).toBe(false);
    conn.destroy();
  });

  it("closes the connection after the answer when the client asked for Connection: close", async () => {
    const { member, other } = s.realm;
    const reg = await register(s, other, { event_types: ["message"] });
    const conn = new Connection();
    const waiting = conn.get(other, eventsPath(reg.queue_id, reg.last_event_id), "Connection: close\r\n");
    await waitingOn(reg.queue_id);
    expectSuccess(await s.api.post(member, "/messages", { type: "direct", to: JSON.stringify([other.id]), content: "bye" }));
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.headers.get("connection")).toBe("close");
    await vi.waitFor(() => expect(conn.closed).toBe(true));
  });

  it("answers a waiting poll of a deactivated user with the error envelope", async () => {
    const { admin } = s.realm;
    const user = s.realm.guest;
    const reg = await register(s, user, { event_types: ["message"] });
    const conn = new Connection();
    const waiting = conn.get(user, eventsPath(reg.queue_id, reg.last_event_id));
    await waitingOn(reg.queue_id);
    expectSuccess(await s.api.delete(admin, `/users/${user.id}`));
    const answer = await waiting;
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ result: "error", msg: "Account is deactivated", code: "UNAUTHORIZED" });
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(Number(answer.headers.get("content-length"))).toBe(Buffer.byteLength(answer.body));
    conn.destroy();
  });
});
