/**
 * The HTTP side of a shutdown (SIGTERM), from the moment the server starts closing:
 * - requests that arrive get a 503 in the error envelope, with Connection: close (Fastify's
 *   own 503 body is turned off in app.ts);
 * - waiting long-polls are answered at once with what their queue holds; polls forwarded to
 *   another node end with no events (the client polls again, through another node);
 * - requests in flight finish (the database closes after the server, see server.ts), and
 *   each connection is closed as soon as it goes idle: otherwise the server would wait for
 *   every keep-alive connection to time out (72 s) before it could close.
 */
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";

const IDLE_SWEEP_MS = 100;

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
  let sweep: NodeJS.Timeout | undefined;
  app.addHook("preClose", async () => {
    closing.abort();
    ctx.eventQueues.stop();
    sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
  });
  app.addHook("onClose", async () => clearInterval(sweep));
  return closing.signal;
}
