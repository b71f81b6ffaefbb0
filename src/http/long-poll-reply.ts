/**
 * The answer of a waiting GET /events, written straight onto Node's response in the turn
 * that wakes the poll: one message to 10,000 waiting polls answers them one after the other
 * in a loop, each with one writeHead and one end (a body built in one buffer), with no
 * promise, Fastify send pipeline or header object per poll. The bytes are those the
 * ordinary path sends (same status, headers and envelope).
 *
 * Fastify's reply is hijacked when the poll starts waiting; its response listeners stay (they
 * are set when the request arrives), so the access line and the rest of its bookkeeping still
 * happen when the response finishes. HTTP semantics stay Node's own: Content-Length, Date,
 * keep-alive or Connection: close, and a HEAD request's missing body.
 */
import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import { ApiError } from "../errors.js";
import type { PolledEvents, PollWaiter } from "../events/queues.js";
import { NO_STORE } from "./cache-control.js";
import { errorBody } from "./error-handler.js";
import { PLAIN_TAIL, PLAIN_TAIL_BYTES, SUCCESS_HEAD_BYTES } from "./response.js";

/** The headers of every answer but its length (`writeHead`'s flat form: name, value, …). */
const JSON_HEADERS = ["content-type", "application/json", "cache-control", NO_STORE] as const;

export class LongPollReply implements PollWaiter {
  private res!: ServerResponse;
  private headers: readonly string[] = JSON_HEADERS;
  private tail: Buffer = PLAIN_TAIL_BYTES;

  /**
   * The poll waits: Fastify will not answer it. `tail` ends the success envelope (see
   * successTail); headers already set on the reply are sent with the answer.
   */
  start(reply: FastifyReply, tail: string): void {
    reply.hijack();
    this.res = reply.raw;
    if (tail !== PLAIN_TAIL) this.tail = Buffer.from(tail);
    const set = reply.getHeaders();
    for (const name in set) {
      if (this.headers === JSON_HEADERS) this.headers = [...JSON_HEADERS];
      for (const value of ([] as unknown[]).concat(set[name])) (this.headers as string[]).push(name, String(value));
    }
  }

  answer(events: PolledEvents): void {
    this.write(200, this.headers, events.json(SUCCESS_HEAD_BYTES, this.tail));
  }

  fail(error: Error): void {
    const err = error instanceof ApiError ? error : new ApiError("Internal server error", { status: 500, code: "INTERNAL_SERVER_ERROR" });
    const headers = [...JSON_HEADERS, ...Object.entries(err.headers).flat()];
    this.write(err.httpStatus, headers, Buffer.from(JSON.stringify(errorBody(err)) + "\n"));
  }

  private write(status: number, headers: readonly string[], body: Buffer): void {
    // A client that went away gets nothing (Node would only report the closed stream).
    if (this.res.destroyed) return;
    this.res.writeHead(status, [...headers, "content-length", String(body.length)]);
    this.res.end(body);
  }
}
