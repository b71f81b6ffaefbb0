/** The success envelope, with `ignored_parameters_unsupported` when the view left parameters unread. */
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import type { ApiRequest, ViewResult } from "./request.js";

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

/**
 * Like SERIALIZED_FIELDS with UTF-8 parts, for large answers (/register): the parts are
 * written one after the other instead of being joined into one more copy of the answer.
 */
export const SERIALIZED_PARTS = Symbol("serialized parts");

export function serializedParts(parts: Buffer[]): ViewResult {
  return { [SERIALIZED_PARTS]: parts };
}

/** Parts below this size are joined with their neighbours: one write each would cost more than the copy. */
const SMALL_PART = 16 * 1024;

/** A body sent as a sequence of buffers, with its total length (the Content-Length). */
export class JsonParts extends Readable {
  readonly byteLength: number;
  private readonly parts: Buffer[] = [];

  constructor(parts: Buffer[]) {
    super();
    let small: Buffer[] = [];
    for (const part of parts) {
      if (part.length >= SMALL_PART) {
        if (small.length > 0) this.parts.push(Buffer.concat(small));
        small = [];
        this.parts.push(part);
      } else {
        small.push(part);
      }
    }
    if (small.length > 0) this.parts.push(Buffer.concat(small));
    this.byteLength = this.parts.reduce((n, part) => n + part.length, 0);
  }

  override _read(): void {
    for (const part of this.parts) if (part.length > 0) this.push(part);
    this.push(null);
  }
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

const SUCCESS_HEAD = '{"result":"success","msg":"",';
const SUCCESS_HEAD_BYTES = Buffer.from(SUCCESS_HEAD);

/** The success envelope as JSON; pre-serialized fields are spliced in, not parsed again. */
export function successJson(req: ApiRequest, data: ViewResult): string | Buffer | JsonParts {
  const parts = data[SERIALIZED_PARTS as unknown as string] as Buffer[] | undefined;
  if (parts !== undefined) return new JsonParts([SUCCESS_HEAD_BYTES, ...parts, Buffer.from(successTail(req))]);
  const serialized = data[SERIALIZED_FIELDS as unknown as string] as string | Buffer[] | undefined;
  if (serialized === undefined) return JSON.stringify(successBody(req, data)) + "\n";
  const ignored = ignoredParameters(req);
  const tail = `${ignored.length > 0 ? `,"ignored_parameters_unsupported":${JSON.stringify(ignored)}` : ""}}\n`;
  if (typeof serialized === "string") return SUCCESS_HEAD + serialized + tail;
  if (serialized.length === 2 && tail === PLAIN_TAIL) return wrappedOnce(serialized[0], serialized[1]);
  return Buffer.concat([SUCCESS_HEAD_BYTES, ...serialized, Buffer.from(tail)]);
}

/** `}` and a newline, after the ignored parameters if any. */
function successTail(req: ApiRequest): string {
  const ignored = ignoredParameters(req);
  return `${ignored.length > 0 ? `,"ignored_parameters_unsupported":${JSON.stringify(ignored)}` : ""}}\n`;
}

const PLAIN_TAIL = "}\n";
const PLAIN_TAIL_BYTES = Buffer.from(PLAIN_TAIL);
const wrapped = new WeakMap<Buffer, WeakMap<Buffer, Buffer>>();

/** The envelope around a cached key and value, built once per cached buffer (large lists are not copied per request). */
function wrappedOnce(key: Buffer, value: Buffer): Buffer {
  let byValue = wrapped.get(key);
  if (!byValue) wrapped.set(key, (byValue = new WeakMap()));
  let body = byValue.get(value);
  if (!body) byValue.set(value, (body = Buffer.concat([SUCCESS_HEAD_BYTES, key, value, PLAIN_TAIL_BYTES])));
  return body;
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return sendJsonText(reply, status, JSON.stringify(body) + "\n");
}

export function sendJsonText(reply: FastifyReply, status: number, json: string | Buffer | JsonParts): FastifyReply {
  if (json instanceof JsonParts) reply.header("content-length", json.byteLength);
  return reply
    .code(status)
    .header("content-type", "application/json")
    .header("cache-control", "no-store, no-cache, must-revalidate, max-age=0")
    .send(json);
}
