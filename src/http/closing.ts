/**
 * The HTTP side of a shutdown (SIGTERM), from the moment the server starts closing:
 * - waiting long-polls are answered at once with what their queue holds; polls forwarded to
 *   another node end with no events (the client polls again, through another node);
 * - the server keeps listening while requests are in flight (for DRAIN_MS at most): requests
 *   that arrive meanwhile get a 503 in the error envelope with Connection: close (Fastify's
 *   own 503 body is turned off in app.ts), not a refused connection;
 * - each connection ends as soon as its response is sent: otherwise the server would wait for
 *   every keep-alive connection to time out (72 s) before it could close;
 * - requests in flight finish before the database closes (server.ts closes it after the server).
 */
import type http from "node:http";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";

/** How long a closing server goes on answering 503 while requests are in flight. */
const DRAIN_MS = 3_000;

export function closingError(): ApiError {
  return new ApiError("The server is shutting down; try again shortly", {
    status: 503,
    code: "SERVICE_UNAVAILABLE",
    headers: { "Retry-After": "1", Connection: "close" },
  });
}

/** Installs the shutdown behaviour; returns the signal aborted when closing begins. */
export function drainOnClose(app: FastifyInstance, ctx: AppContext): AbortSignal {
  const closing = new AbortController();
  ctx.closing = closing.signal;
  app.addHook("preClose", async () => {
    closing.abort();
    ctx.eventQueues.stop();
    await drain(app.server, DRAIN_MS);
  });
  return closing.signal;
}

/** Waits until no connection is open (idle ones are closed now, busy ones once answered), `ms` at most. */
async function drain(server: http.Server, ms: number): Promise<void> {
  // A connection ends right after its response (the 72 s keep-alive would hold the close up).
  server.keepAliveTimeout = 1;
  server.closeIdleConnections();
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && (await openConnections(server)) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function openConnections(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((err, count) => resolve(err ? 0 : count)));
}
