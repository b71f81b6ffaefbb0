/**
 * The access log: one line per request (method, path without the query string, status,
 * response time), written by one onResponse hook. Fastify's own request logging is off
 * (it serializes the request twice and builds a child logger per request); the query
 * string and headers never reach the log, so nothing there needs redacting.
 */
import type { FastifyInstance } from "fastify";

const QUIET_LEVELS = new Set(["fatal", "error", "warn", "silent"]);

export function registerAccessLog(app: FastifyInstance): void {
  if (QUIET_LEVELS.has(app.log.level)) return;
  app.addHook("onResponse", (request, reply, done) => {
    const url = request.url;
    const q = url.indexOf("?");
    app.log.info({ method: request.method, path: q === -1 ? url : url.slice(0, q), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, "request");
    done();
  });
}
