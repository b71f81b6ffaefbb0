/** A route: method, path under /api/v1, view, and who may call it. */
import type { ApiError } from "../errors.js";
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import type { PublicView, View, ViewResult } from "./request.js";

export type Method = "GET" | "POST" | "PATCH" | "DELETE" | "PUT";

/**
 * - "user": HTTP Basic credentials required.
 * - "optional": anonymous callers allowed (the view checks the realm's public-access option);
 *   credentials, when sent, are checked.
 * - "none": credentials ignored (server_settings, fetch_api_key).
 */
export type AuthKind = "user" | "optional" | "none";

export interface RouteDef {
  method: Method;
  /** Path under /api/v1; `{name:int}` is a digits-only segment, `{name}` any segment, `{name*}` the rest. */
  path: string;
  auth: AuthKind;
  handler: View | PublicView;
  /** The error for a host naming no realm on an unauthenticated route (default: 404 NONEXISTENT_SUBDOMAIN). */
  unknownRealmError?: () => ApiError;
  /** Answers a request to the root domain while no default organization exists (server_settings). */
  rootWithoutRealm?: (ctx: AppContext, raw: FastifyRequest) => Promise<ViewResult>;
  /** Long-polls are not counted against the per-user API rate limit (as upstream). */
  exemptFromRateLimit?: boolean;
  /**
   * Largest body this route accepts, in bytes (file uploads); default config.maxRequestBytes.
   * The limit applies to the route's path whatever the method (the largest one declared there).
   */
  maxBodyBytes?: number;
}

export function route(method: Method, path: string, handler: View, opts: { exemptFromRateLimit?: boolean; maxBodyBytes?: number } = {}): RouteDef {
  return { method, path, auth: "user", handler, ...opts };
}

export function publicRoute(
  method: Method,
  path: string,
  handler: PublicView,
  auth: "optional" | "none",
  opts: { unknownRealmError?: () => ApiError; rootWithoutRealm?: RouteDef["rootWithoutRealm"]; maxBodyBytes?: number } = {},
): RouteDef {
  return { method, path, auth, handler, ...opts };
}
