/**
 * Graceful shutdown on a real socket: a waiting long-poll is answered by the shutdown
 * (not by its heartbeat), close() resolves promptly, and the event system's timers stop;
 * requests arriving meanwhile get a 503 in the envelope, writes in flight finish.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicAuth, expectSuccess } from "../support/client.js";
import { checkResponse } from "../support/openapi/validate.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;

beforeAll(async () => {
  // The default long-poll wait (50 s): only shutdown can answer it within the test.
  s = await startTestServer();
});
afterAll(() => s?.close());

function timeoutCount(): number {
  return process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
}

function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string; at: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method: "GET", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        try {
          checkResponse("GET", path.replace(/^\/api\/v1/, ""), res.statusCode ?? 0, res.headers["content-type"], body);
          resolve({ status: res.statusCode ?? 0, body, at: Date.now() });
        } catch (err) {
          reject(err);
        }
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("graceful shutdown", () => {
  it("answers a waiting long-poll and closes promptly, leaving no timers", async () => {
    const { member } = s.realm;
    const reg = expectSuccess(await s.api.post(member, "/register", { event_types: ["message"] }));
    const baseline = timeoutCount();
    await s.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (s.app.server.address() as AddressInfo).port;
    const query = new URLSearchParams({ queue_id: reg.queue_id as string, last_event_id: String(reg.last_event_id) });
    const poll = get(port, `/api/v1/events?${query}`, { host: s.realm.host, authorization: basicAuth(member) });
    // Wait until the poll is parked on its queue (under load that can take a while: the
    // test's own timeout bounds the wait). Its 50 s heartbeat timer is then armed. (Counting
    // active timers against a baseline was flaky: a timer of the /register request above
    // may still be in the baseline and end meanwhile.)
    const queue = s.ctx.eventQueues.store.get(reg.queue_id as string);
    while (queue?.waiter == null) await new Promise((r) => setTimeout(r, 10));
    const heartbeat = queue.waiter.timer as NodeJS.Timeout & { _destroyed?: boolean };
    expect(heartbeat.hasRef() && heartbeat._destroyed === false, "the long-poll is waiting on its heartbeat timer").toBe(true);

    const started = Date.now();
    await s.app.close();
    const closedAt = Date.now();
    const answer = await poll;
    // Shutdown itself answers the poll: long before its 50 s heartbeat, and not with one.
    // (The margin is wide because a loaded 2-core runner can stall a process for seconds;
    // the cause is checked below, not the speed.)
    expect(closedAt - started, "close() resolved well before the 50 s heartbeat").toBeLessThan(10_000);
    expect(answer.at - started, "the long-poll was answered well before its heartbeat").toBeLessThan(10_000);
    expect([200, 400, 503]).toContain(answer.status);
    const body = JSON.parse(answer.body);
    expect(JSON.stringify(body.events ?? []), "answered by shutdown, not by a heartbeat").not.toContain("heartbeat");
    expect(typeof body.result).toBe("string");
    expect(typeof body.msg).toBe("string");
    // The heartbeat timer of the poll and the queue GC timer are gone.
    await new Promise((r) => setImmediate(r));
    expect(heartbeat._destroyed, "the heartbeat timer was cleared").toBe(true);
    expect(timeoutCount(), "no timers left by the event system").toBeLessThanOrEqual(baseline);
    // The queue garbage collector's interval is unref'd (not counted above): check it directly.
    expect((s.ctx.eventQueues as unknown as { gcTimer: unknown }).gcTimer).toBeNull();
    if (process.env.SHUTDOWN_DEBUG) console.log(answer);
  });
});

describe("requests during a shutdown", () => {
  it("refuses new requests with a 503 envelope, finishes the write in flight, and closes kept-alive connections", async () => {
    const server = await startTestServer();
    try {
      const { member, owner, host } = server.realm;
      await server.app.listen({ port: 0, host: "127.0.0.1" });
      const port = (server.app.server.address() as AddressInfo).port;
      // A kept-alive connection that has made one request: it must not hold the close up.
      const agent = new http.Agent({ keepAlive: true });
      const first = await rawGet(port, "/api/v1/users/me", { host, authorization: basicAuth(member) }, agent);
      expect(first.status).toBe(200);
      // A send whose body is still on its way when the shutdown begins.
      const body = new URLSearchParams({ type: "direct", to: JSON.stringify([owner.id]), content: "in flight at shutdown" }).toString();
      const socket = net.connect(port, "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", resolve));
      let answer = "";
      socket.setEncoding("utf8");
      socket.on("data", (c: string) => (answer += c));
      const ended = new Promise((resolve) => socket.once("end", resolve));
      socket.write(`POST /api/v1/messages HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${basicAuth(member)}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`);
      await new Promise((r) => setTimeout(r, 100));

      const started = Date.now();
      const closed = server.app.close();
      await new Promise((r) => setTimeout(r, 50));
      const refused = await rawGet(port, "/api/v1/users/me", { host, authorization: basicAuth(member) });
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body)).toEqual({ result: "error", msg: expect.any(String), code: "SERVICE_UNAVAILABLE" });
      expect(refused.headers.connection).toBe("close");

      socket.write(body.slice(10));
      await ended;
      const [head, payload] = answer.split("\r\n\r\n", 2);
      expect(head).toMatch(/^HTTP\/1\.1 200/);
      const { id } = JSON.parse(payload) as { id: number };
      await closed;
      expect(Date.now() - started, "close() did not wait for the kept-alive connection to time out").toBeLessThan(10_000);
      const row = await server.db.selectFrom("messages").select("id").where("id", "=", id).executeTakeFirst();
      expect(row?.id).toBe(id);
      agent.destroy();
    } finally {
      await server.close();
    }
  });
});

function rawGet(port: number, path: string, headers: Record<string, string>, agent?: http.Agent): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method: "GET", headers, agent: agent ?? false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
