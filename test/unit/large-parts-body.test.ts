/**
 * sendJsonText with parts beyond LARGE_BODY (a /register answer): written straight to the
 * socket, they arrive whole behind their Content-Length, the connection stays usable, and
 * Fastify's onResponse hooks (the access line) still run.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJsonText } from "../../src/http/response.js";

const parts = [Buffer.from('{"a":"'), Buffer.alloc(70_000, "x"), Buffer.from('","b":"'), Buffer.alloc(20_000, "é"), Buffer.from('"}\n')];
const expected = Buffer.concat(parts);

describe("sendJsonText with large parts", () => {
  const app = Fastify();
  const responded: number[] = [];
  let port = 0;
  beforeAll(async () => {
    app.addHook("onResponse", (_request, reply, done) => {
      responded.push(reply.statusCode);
      done();
    });
    app.get("/parts", (_request, reply) => sendJsonText(reply, 200, parts));
    await app.listen({ port: 0, host: "127.0.0.1" });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  const get = (agent: http.Agent) =>
    new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: "/parts", agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on("error", reject);
    });

  it("arrives whole, with its length and headers, twice on one kept-alive connection", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 2; i++) {
        const { headers, body } = await get(agent);
        expect(headers["content-length"]).toBe(String(expected.length));
        expect(headers["content-type"]).toBe("application/json");
        expect(headers["cache-control"]).toBeDefined();
        expect(headers["transfer-encoding"]).toBeUndefined();
        expect(body.equals(expected)).toBe(true);
      }
    } finally {
      agent.destroy();
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(responded).toEqual([200, 200]);
  });
});
