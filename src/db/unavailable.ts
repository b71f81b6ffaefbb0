/**
 * Whether an error says the database cannot be reached right now (PostgreSQL restarting,
 * down, or its connection lost), as opposed to a fault of the query. Such a request may
 * succeed when tried again; the HTTP layer answers it with a 503.
 */

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/**
 * PostgreSQL's SQLSTATEs: class 08 (connection exception), admin/crash shutdown and "the
 * database system is starting up / shutting down" (57P01–57P03), too many connections.
 */
function isUnavailableSqlState(code: string): boolean {
  return code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300";
}

/** node-postgres's own messages for a connection that ended or could not be made in time. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/i,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Connection ended/,
];

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== "object" || err === null || depth > 4) return false;
  const { code, message, errors, cause } = err as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === "string" && (NETWORK_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && isUnavailableSqlState(code)))) return true;
  if (typeof message === "string" && CONNECTION_MESSAGES.some((m) => m.test(message))) return true;
  // Connecting to a name with several addresses fails with all of them (an AggregateError).
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}
