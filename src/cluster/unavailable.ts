/** A shared service (Redis, another node) cannot be reached: HTTP 503 in the usual envelope. */
import { ApiError } from "../errors.js";

export function serviceUnavailable(cause?: Error): ApiError {
  const err = new ApiError("Service temporarily unavailable; try again shortly", { status: 503, code: "SERVICE_UNAVAILABLE", headers: { "Retry-After": "1" } });
  if (cause) (err as { cause?: unknown }).cause = cause;
  return err;
}
