/** The request as views see it: realm, caller, merged parameters. */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";

export interface ApiRequest {
  raw: FastifyRequest;
  /** Fastify's reply, for a view that answers later by itself (a waiting long-poll: see ANSWERED_LATER). */
  reply: FastifyReply;
  ctx: AppContext;
  /** The realm the request's host names (or the caller's realm when authenticated). */
  realm: Realm;
  /** The authenticated caller; null only on routes that allow anonymous access. */
  user: User | null;
  /** Parameters from the body (first) and the query string, as raw strings. */
  params: Map<string, string>;
  /** Names consumed by parseParams. */
  usedParams: Set<string>;
  /** True once the view parsed parameters; only then are ignored ones reported. */
  usedFramework: boolean;
  pathParams: Record<string, string>;
  /** The sending client's name (`client` parameter, else from the User-Agent). */
  clientName: string;
  /** The browser session the caller was authenticated by (none for Basic credentials). */
  sessionId?: number;
}

export interface AuthedRequest extends ApiRequest {
  user: User;
}

/** What a view returns: the endpoint's fields, added after result and msg. */
export type ViewResult = Record<string, unknown>;

/** Returned by a view that hijacked the reply and answers the request itself, later. */
export const ANSWERED_LATER: ViewResult = Object.freeze({});
export type View = (req: AuthedRequest) => Promise<ViewResult>;
export type PublicView = (req: ApiRequest) => Promise<ViewResult>;
