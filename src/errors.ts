/**
 * Errors every layer may throw; only http/error-handler.ts turns them into JSON.
 * The envelope is {"result":"error","msg":…,<data…>,"code":…}.
 */
export type ErrorData = Record<string, unknown>;

export class ApiError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly data: ErrorData;
  readonly headers: Record<string, string>;

  constructor(
    msg: string,
    opts: { code?: string; status?: number; data?: ErrorData; headers?: Record<string, string> } = {},
  ) {
    super(msg);
    this.code = opts.code ?? "BAD_REQUEST";
    this.httpStatus = opts.status ?? 400;
    this.data = opts.data ?? {};
    this.headers = opts.headers ?? {};
  }
}

/** A lookup of an object that does not exist: HTTP 404, code stays BAD_REQUEST as upstream. */
export class ResourceNotFoundError extends ApiError {
  constructor(msg: string, code = "BAD_REQUEST") {
    super(msg, { code, status: 404 });
  }
}

/** Missing or bad credentials on /api/v1: HTTP 401. */
export class UnauthorizedError extends ApiError {
  constructor(msg: string, code = "UNAUTHORIZED") {
    super(msg, { code, status: 401, headers: { "WWW-Authenticate": 'Basic realm="parley"' } });
  }
}

/** Organization-role errors ("Must be an organization administrator"). */
export class UnauthorizedPrincipalError extends ApiError {
  constructor(msg: string) {
    super(msg, { code: "UNAUTHORIZED_PRINCIPAL" });
  }
}

export const mustBeAdmin = () => new UnauthorizedPrincipalError("Must be an organization administrator");
export const mustBeOwner = () => new UnauthorizedPrincipalError("Must be an organization owner");

/** A service Parley needs (the database, Redis, another node) cannot be reached now: HTTP 503, try again. */
export function serviceUnavailable(cause?: Error): ApiError {
  const err = new ApiError("Service temporarily unavailable; try again shortly", { status: 503, code: "SERVICE_UNAVAILABLE", headers: { "Retry-After": "1" } });
  if (cause) (err as { cause?: unknown }).cause = cause;
  return err;
}
