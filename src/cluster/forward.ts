/**
 * GET and DELETE /events for a queue that lives on another node: the request is sent on to
 * that node as it came (the same credentials and parameters) and its answer returned as is.
 * The node's own checks apply there (the queue's owner, last_event_id). A node that cannot
 * be reached has lost its queues: the client gets BAD_EVENT_QUEUE_ID and re-registers.
 */
import http from "node:http";
import type { FastifyRequest } from "fastify";

/** Marks a forwarded request, so a node never forwards one again. */
export const FORWARDED_HEADER = "x-parley-forwarded";

const agent = new http.Agent({ keepAlive: true });

export interface ForwardedAnswer {
  status: number;
  body: string;
}

/** Sends the request on to `nodeUrl`; rejects when that node cannot be reached. */
export function forwardRequest(nodeUrl: string, raw: FastifyRequest, params: ReadonlyMap<string, string>, signal: AbortSignal): Promise<ForwardedAnswer> {
  const query = new URLSearchParams([...params]).toString();
  const path = raw.url.split("?")[0];
  const target = new URL(`${path}${query ? `?${query}` : ""}`, nodeUrl);
  const headers: Record<string, string | string[]> = { [FORWARDED_HEADER]: "1", host: raw.headers.host ?? target.host };
  // Credentials either way: Basic, or a browser session (its cookie, and the CSRF token a DELETE needs).
  for (const name of ["authorization", "cookie", "x-csrftoken", "user-agent"] as const) {
    const value = raw.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return new Promise((resolve, reject) => {
    const request = http.request(target, { method: raw.method, headers, agent, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 502, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    request.on("error", reject);
    request.end();
  });
}
