/** The success envelope, with `ignored_parameters_unsupported` when the view left parameters unread. */
import type { FastifyReply } from "fastify";
import type { ApiRequest, ViewResult } from "./request.js";

/** Parameters every endpoint accepts silently. */
const ALWAYS_ACCEPTED = new Set(["client"]);

/**
 * A view may return its fields already serialized (a cached response): the JSON members
 * without braces, e.g. `"members":[…]`, under this key, and no other field.
 */
export const SERIALIZED_FIELDS = Symbol("serialized fields");

export function serializedFields(json: string): ViewResult {
  return { [SERIALIZED_FIELDS]: json };
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

/** The success envelope as JSON text; pre-serialized fields are spliced in, not parsed again. */
export function successJson(req: ApiRequest, data: ViewResult): string {
  const serialized = data[SERIALIZED_FIELDS as unknown as string] as string | undefined;
  if (serialized === undefined) return JSON.stringify(successBody(req, data)) + "\n";
  const ignored = ignoredParameters(req);
  const tail = ignored.length > 0 ? `,"ignored_parameters_unsupported":${JSON.stringify(ignored)}` : "";
  return `{"result":"success","msg":"",${serialized}${tail}}\n`;
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return sendJsonText(reply, status, JSON.stringify(body) + "\n");
}

export function sendJsonText(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "application/json")
    .header("cache-control", "no-store, no-cache, must-revalidate, max-age=0")
    .send(json);
}
