/** Turns thrown errors into the error envelope: {"result":"error","msg":…,<data>,"code":…}. */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ApiError, serviceUnavailable } from "../errors.js";
import { isDatabaseUnavailable } from "../db/unavailable.js";
import { bodyOverLimit, requestTooLarge } from "./body/size-limit.js";
import { sendJson } from "./response.js";

export function errorBody(err: ApiError): Record<string, unknown> {
  return { result: "error", msg: err.message, ...err.data, code: err.code };
}

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return sendJson(reply, err.httpStatus, errorBody(err));
}

/** The 404 of every path nothing answers (the not-found handler, unknown static files). */
export function sendNotFound(reply: FastifyReply): FastifyReply {
  return sendApiError(reply, new ApiError("Not Found", { status: 404, code: "NOT_FOUND" }));
}

export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  // A body cut at its limit makes parsers fail in their own ways: the cause is the size.
  if (bodyOverLimit(request)) return sendApiError(reply, requestTooLarge());
  if (error instanceof ApiError) return sendApiError(reply, error);
  const code = (error as FastifyError).code;
  if (["FST_ERR_CTP_BODY_TOO_LARGE", "FST_REQ_FILE_TOO_LARGE", "FST_FILES_LIMIT", "FST_FIELDS_LIMIT", "FST_PARTS_LIMIT"].includes(code)) {
    return sendApiError(reply, requestTooLarge());
  }
  const status = (error as FastifyError).statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return sendApiError(reply, new ApiError("Malformed payload", { status: 400 }));
  }
  // The database is restarting or unreachable: the client may try again (never a 500).
  if (isDatabaseUnavailable(error)) {
    request.log.warn(`Database unavailable: ${error.message}`);
    return sendApiError(reply, serviceUnavailable(error));
  }
  request.log.error({ err: error }, "unhandled error");
  return sendApiError(reply, new ApiError("Internal server error", { status: 500, code: "INTERNAL_SERVER_ERROR" }));
}
