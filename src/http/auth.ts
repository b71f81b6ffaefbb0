/**
 * HTTP Basic authentication with API email and API key, with upstream's messages,
 * codes and check order (realm deactivated → user deactivated → subdomain).
 */
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError, UnauthorizedError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import { rememberingLast } from "../lib/remembering-last.js";

const API_KEY_FORMAT = /^[A-Za-z0-9]{32}$/;

export interface Credentials {
  email: string;
  apiKey: string;
}

/** Parses the Authorization header; undefined when there is none. */
export function parseBasicAuth(header: string | undefined): Credentials | undefined {
  return header === undefined ? undefined : parseHeader(header);
}

// Clients send the same header on every request (the parse is pure; its answer is frozen).
const parseHeader = rememberingLast((header: string): Credentials => {
  const [scheme, encoded, ...rest] = header.trim().split(/\s+/);
  if (scheme.toLowerCase() !== "basic") throw new ApiError("This endpoint requires HTTP basic authentication.");
  if (!encoded || rest.length > 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw invalidHeader();
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const parts = decoded.split(":");
  if (parts.length !== 2) throw invalidHeader();
  return Object.freeze({ email: parts[0].trim(), apiKey: parts[1].trim() });
});

const invalidHeader = () => new UnauthorizedError("Invalid authorization header for basic auth");

/** Authenticates the request's credentials; the caller's realm must match the host's subdomain. */
export async function authenticate(
  ctx: AppContext,
  creds: Credentials,
  subdomain: string,
): Promise<{ user: User; realm: Realm }> {
  if (!API_KEY_FORMAT.test(creds.apiKey)) throw new UnauthorizedError("Malformed API key");
  // Another process (the CLI) may have written since the last request: flush before reading caches.
  ctx.caches.checkExternalWrites();
  const found = await ctx.caches.usersByApiKey.find(ctx.db, creds.apiKey);
  if (!found || found.user.delivery_email.toLowerCase() !== creds.email.toLowerCase()) {
    throw new UnauthorizedError("Invalid API key");
  }
  return checkAccount(found, subdomain);
}

/** The checks every way of authenticating shares (Basic credentials and browser sessions), in upstream's order. */
export function checkAccount<T extends { user: User; realm: Realm }>(found: T, subdomain: string): T {
  if (found.realm.deactivated) throw new UnauthorizedError("This organization has been deactivated");
  if (!found.user.is_active) throw new UnauthorizedError("Account is deactivated");
  if (found.realm.string_id !== subdomain) throw new UnauthorizedError("Account is not associated with this subdomain");
  if (found.user.is_bot && found.user.bot_type === 2) {
    throw new UnauthorizedError("This API is not available to incoming webhook bots.");
  }
  return found;
}

export function requireCredentials(req: FastifyRequest): Credentials {
  const creds = parseBasicAuth(req.headers.authorization);
  if (!creds) throw notLoggedIn();
  return creds;
}

export const notLoggedIn = () => new UnauthorizedError("Not logged in: API authentication or user session required");
