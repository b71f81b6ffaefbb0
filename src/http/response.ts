/** The success envelope, with `ignored_parameters_unsupported` when the view left parameters unread. */
import type { OutgoingHttpHeaders } from "node:http";
import type { FastifyReply } from "fastify";
import type { ApiRequest, ViewResult } from "./request.js";
import { acceptsGzip, gzipCopyOf } from "./gzip-bodies.js";
import { NO_STORE } from "./cache-control.js";

/** Parameters every endpoint accepts silently. */
const ALWAYS_ACCEPTED = new Set(["client"]);

/**
 * A view may return its fields already serialized (a cached response): the JSON members
 * without braces, e.g. `"members":[…]`, as text or as UTF-8 parts, under this key, and no
 * other field.
 */
export const SERIALIZED_FIELDS = Symbol("serialized fields");

export function serializedFields(json: string | Buffer[]): ViewResult {
  return { [SERIALIZED_FIELDS]: json };
}

const NO_BYTES = Buffer.alloc(0);

/**
 * Fields kept as bytes by a cache (replaced, never changed in place): the whole body is
 * built once per buffer and sent as it is, so a request neither joins nor encodes text.
 */
export function cachedFields(json: Buffer): ViewResult {
  return serializedFields([NO_BYTES, json]);
}

function ignoredParameters(req: ApiRequest): string[] {
  if (!req.usedFramework || req.params.size === 0) return [];
  return [...req.params.keys()].filter((k) => !req.usedParams.has(k) && !ALWAYS_ACCEPTED.has(k)).sort();
}

export function successBody(req: ApiRequest, data: ViewResult): Record<string, unknown> {
  const body: Record<string, unknown> = { result: "success", msg: "", ...data };
  const ignored = ignoredParameters(req);
  if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
  return body;
}

export const SUCCESS_HEAD = '{"result":"success","msg":"",';
export const SUCCESS_HEAD_BYTES = Buffer.from(SUCCESS_HEAD);

/**
 * A response body: JSON text, or UTF-8 bytes, or UTF-8 parts sent one after the other (a
 * large cached list with one record spliced in is not copied into one buffer per request).
 */
export type JsonBody = string | Buffer | readonly Buffer[];

/** The success envelope as JSON; pre-serialized fields are spliced in, not parsed again. */
export function successJson(req: ApiRequest, data: ViewResult): JsonBody {
  const serialized = data[SERIALIZED_FIELDS as unknown as string] as string | Buffer[] | undefined;
  if (serialized === undefined) return JSON.stringify(successBody(req, data)) + "\n";
  const tail = successTail(req);
  if (typeof serialized === "string") return SUCCESS_HEAD + serialized + tail;
  if (serialized.length === 2 && tail === PLAIN_TAIL) return wrappedOnce(serialized[0], serialized[1]);
  return [SUCCESS_HEAD_BYTES, ...serialized, Buffer.from(tail)];
}

/** What follows pre-serialized fields in the success envelope: `}` and a newline, after any ignored parameters. */
export function successTail(req: ApiRequest): string {
  const ignored = ignoredParameters(req);
  return ignored.length > 0 ? `,"ignored_parameters_unsupported":${JSON.stringify(ignored)}}\n` : PLAIN_TAIL;
}

/** The envelope's ordinary end (no ignored parameters). */
export const PLAIN_TAIL = "}\n";
export const PLAIN_TAIL_BYTES = Buffer.from(PLAIN_TAIL);
const wrapped = new WeakMap<Buffer, WeakMap<Buffer, string | Buffer>>();
/** Bodies beyond this many bytes are large: not joined from parts, offered gzipped when cached. */
const LARGE_BODY = 64 * 1024;
/** Large bodies built once from cached values (worth a gzip copy: see gzip-bodies.ts). */
const largeCachedBodies = new WeakSet<Buffer>();

/**
 * The envelope around a cached key and value (two parts are always cached buffers, see
 * cachedFields), built once per pair of buffers: large lists are not copied per request,
 * and small answers are not encoded per request.
 *
 * A small body is kept as text: Node joins a text body to the response head and writes the
 * two with one `write`, where a buffer body goes out as a second chunk of a `writev`:
 * GET /users/me took 43 instead of 44 µs of the main thread's CPU, lower in 9 of 14
 * alternating rounds and higher in 2 (bench/ab-cpu.ts). Text of a cached value is kept
 * only up to LARGE_BODY, so the copy is small.
 */
function wrappedOnce(key: Buffer, value: Buffer): string | Buffer {
  let byValue = wrapped.get(key);
  if (!byValue) wrapped.set(key, (byValue = new WeakMap()));
  let body = byValue.get(value);
  if (body === undefined) {
    const bytes = Buffer.concat([SUCCESS_HEAD_BYTES, key, value, PLAIN_TAIL_BYTES]);
    if (bytes.length > LARGE_BODY) largeCachedBodies.add(bytes);
    byValue.set(value, (body = bytes.length > LARGE_BODY ? bytes : bytes.toString()));
  }
  return body;
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return sendJsonText(reply, status, JSON.stringify(body) + "\n");
}

export function sendJsonText(reply: FastifyReply, status: number, json: JsonBody): FastifyReply {
  reply.code(status).header("content-type", "application/json").header("cache-control", NO_STORE);
  if (typeof json === "string") return reply.send(json);
  if (Buffer.isBuffer(json)) {
    if (!largeCachedBodies.has(json)) return reply.send(json);
    reply.header("vary", "accept-encoding");
    const compressed = acceptsGzip(reply.request.headers["accept-encoding"]) ? gzipCopyOf(json) : undefined;
    return compressed ? reply.header("content-encoding", "gzip").send(compressed) : reply.send(json);
  }
  // Parts beyond LARGE_BODY in all are streamed as they are; smaller ones are joined.
  let length = 0;
  for (const part of json) length += part.length;
  if (length <= LARGE_BODY) return reply.send(Buffer.concat(json, length));
  return sendParts(reply.code(status).header("content-length", String(length)), coalesced(json));
}

/**
 * The parts go out as they are, behind a correct Content-Length (no chunked encoding),
 * written straight to the response in one corked batch (one writev). A Readable piped
 * through Fastify's stream path did the same with a stream, two end-of-stream watchers and
 * a tick per chunk. Fastify still runs the onResponse hooks (the access line) when the
 * response finishes.
 */
function sendParts(reply: FastifyReply, parts: readonly Buffer[]): FastifyReply {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders);
  res.cork();
  for (const part of parts) res.write(part);
  // end() uncorks: the head and every part leave together.
  res.end();
  return reply;
}

/** Parts below this size are joined with their neighbours: a write each would cost more than the copy. */
const SMALL_PART = 16 * 1024;

/** Large parts as they are, runs of small ones joined (a /register answer has hundreds of parts). */
function coalesced(parts: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  let small: Buffer[] = [];
  for (const part of parts) {
    if (part.length === 0) continue;
    if (part.length < SMALL_PART) {
      small.push(part);
      continue;
    }
    if (small.length > 0) out.push(Buffer.concat(small));
    small = [];
    out.push(part);
  }
  if (small.length > 0) out.push(Buffer.concat(small));
  return out;
}
