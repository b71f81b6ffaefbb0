/**
 * The request-body size limit, whatever the body's encoding: a declared Content-Length,
 * chunked transfer, multipart with many parts. Bytes are counted as the HTTP parser hands
 * them to the request stream, before any body parser sees them (the multipart plugin reads
 * the raw request itself, so a limit inside one parser is not enough). Past the limit the
 * rest of the body is read and discarded, never kept: parsers see at most `limit` bytes,
 * and the request is answered with the JSON 413 once the body ends. (Ending the stream
 * early makes Node destroy the socket, resetting the connection before the client can
 * read the answer.)
 */
import type { IncomingMessage } from "node:http";
import type { FastifyRequest } from "fastify";
import { ApiError } from "../../errors.js";

const overLimit = Symbol("bodyOverLimit");
type Marked = FastifyRequest & { [overLimit]?: boolean };

export function requestTooLarge(): ApiError {
  return new ApiError("Request entity too large", { status: 413 });
}

/** Whether the request's body went past its limit (its parsed body is then truncated). */
export function bodyOverLimit(request: FastifyRequest): boolean {
  return (request as Marked)[overLimit] === true;
}

/**
 * Refuses a declared length over the route's limit (`defaultLimit` unless the route sets
 * its own) at once, and caps the bytes actually received.
 */
export function limitBodySize(request: FastifyRequest, defaultLimit: number): void {
  const length = request.headers["content-length"];
  // Neither a length nor chunked transfer: the request has no body to count (most GETs).
  if (length === undefined && request.headers["transfer-encoding"] === undefined) return;
  // Read only here: Fastify builds the route's options object on each access.
  const limit = request.routeOptions.bodyLimit ?? defaultLimit;
  if (Number(length ?? 0) > limit) throw requestTooLarge();
  // A declared length frames the body: Node's HTTP parser hands over exactly that many bytes
  // (anything after them is the next request), so there is nothing more to count.
  if (length !== undefined && request.headers["transfer-encoding"] === undefined) return;
  const raw = request.raw as IncomingMessage;
  const push = raw.push.bind(raw);
  let received = 0;
  let cut = false;
  raw.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk === null || chunk === undefined) return push(chunk);
    if (cut) return true; // discarded
    received += typeof chunk === "string" ? Buffer.byteLength(chunk, encoding) : (chunk as Uint8Array).length;
    if (received <= limit) return push(chunk, encoding);
    // Parsers get nothing more; the request is refused before any view runs.
    cut = true;
    (request as Marked)[overLimit] = true;
    return true;
  };
}
