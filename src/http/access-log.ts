/**
 * The access log: one line per request (method, path without the query string, status,
 * response time), written by one onResponse hook. Fastify's own request logging is off
 * (it serializes the request twice and builds a child logger per request); the query
 * string and headers never reach the log, so nothing there needs redacting.
 *
 * The line is the JSON line pino would write for `log.info({method, path, statusCode, ms},
 * "request")`, formatted here and handed straight to the logger's destination: pino's
 * generic path (redaction, serializers, key-by-key stringify) cost a tenth of the cheapest
 * request's CPU, and this line has a fixed shape with no secrets in it.
 */
import os from "node:os";
import type { FastifyInstance } from "fastify";
import pino from "pino";

const QUIET_LEVELS = new Set(["fatal", "error", "warn", "silent"]);
const INFO = 30;

interface Destination {
  write(line: string): unknown;
}

export function registerAccessLog(app: FastifyInstance): void {
  if (QUIET_LEVELS.has(app.log.level)) return;
  const destination = (app.log as unknown as Record<symbol, Destination | undefined>)[pino.symbols.streamSym];
  const write = destination ? accessLine(app, destination) : (fields: AccessFields) => app.log.info(fields, "request");
  app.addHook("onResponse", (request, reply, done) => {
    const url = request.url;
    const q = url.indexOf("?");
    write({ method: request.method, path: q === -1 ? url : url.slice(0, q), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 });
    done();
  });
}

interface AccessFields {
  method: string;
  path: string;
  statusCode: number;
  ms: number;
}

/** Lines are handed to the destination in blocks of this many characters (its own block, see server.ts)… */
const BLOCK = 4096;
/** …or this long after the first line of a block, whichever comes first. */
export const ACCESS_LOG_DELAY_MS = 100;

/**
 * Writes pino's line for the access fields (level, time, pid, hostname first, as pino does).
 * Lines go to the destination in blocks (BLOCK, or ACCESS_LOG_DELAY_MS after a block's
 * first line, or at close or exit): the destination measures its whole pending block on
 * every write, so a write per line (or per turn of a lightly loaded server) cost about
 * three times the line itself.
 */
function accessLine(app: FastifyInstance, destination: Destination & { flushSync?: () => void }): (f: AccessFields) => void {
  const head = `{"level":${INFO},"time":`;
  const base = `,"pid":${process.pid},"hostname":${JSON.stringify(os.hostname())},"method":`;
  let pending = "";
  let timer: NodeJS.Timeout | undefined;
  const writePending = () => {
    const lines = pending;
    pending = "";
    if (lines !== "") destination.write(lines);
  };
  const onTimer = () => {
    timer = undefined;
    writePending();
  };
  // An exit before the block is handed over still writes its lines.
  const atExit = () => {
    writePending();
    try {
      destination.flushSync?.();
    } catch {
      /* the destination is closed already: nothing more can be written */
    }
  };
  process.once("exit", atExit);
  app.addHook("onClose", (_app, done) => {
    process.off("exit", atExit);
    clearTimeout(timer);
    timer = undefined;
    writePending();
    done();
  });
  return (f) => {
    pending += `${head}${Date.now()}${base}${methodJson(f.method)},"path":${pathJson(f.path)},"statusCode":${f.statusCode},"ms":${f.ms},"msg":"request"}\n`;
    if (pending.length >= BLOCK) writePending();
    // The timer stays armed across full blocks: at most one per ACCESS_LOG_DELAY_MS.
    else if (timer === undefined) timer = setTimeout(onTimer, ACCESS_LOG_DELAY_MS).unref();
  };
}

const METHODS = new Map(["GET", "HEAD", "POST", "PATCH", "PUT", "DELETE", "OPTIONS"].map((m) => [m, `"${m}"`]));
const methodJson = (method: string) => METHODS.get(method) ?? JSON.stringify(method);
/** Paths are mostly plain ASCII with nothing to escape. */
const PLAIN_PATH = /^[\w\-./~%@:+,;=!*'()$&]*$/;
const pathJson = (path: string) => (PLAIN_PATH.test(path) ? `"${path}"` : JSON.stringify(path));
