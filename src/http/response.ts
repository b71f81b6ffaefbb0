/** The success envelope, with `ignored_parameters_unsupported` when the view left parameters unread. */
import type { FastifyReply } from "fastify";
import type { ApiRequest, ViewResult } from "./request.js";

/** Parameters every endpoint accepts silently. */
const ALWAYS_ACCEPTED = new Set(["client"]);

export function successBody(req: ApiRequest, data: ViewResult): Record<string, unknown> {
  const body: Record<string, unknown> = { result: "success", msg: "", ...data };
  if (req.usedFramework) {
    const ignored = [...req.params.keys()].filter((k) => !req.usedParams.has(k) && !ALWAYS_ACCEPTED.has(k)).sort();
    if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
  }
  return body;
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "application/json")
    .header("cache-control", "no-store, no-cache, must-revalidate, max-age=0")
    .send(JSON.stringify(body) + "\n");
}
