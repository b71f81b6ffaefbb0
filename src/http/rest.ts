/**
 * Registers the route table under /api/v1 and again under /json (upstream's prefix for its
 * web client): one Fastify route per path accepting every method, so a wrong method gets
 * upstream's JSON 405 (checked before authentication). Both prefixes accept Basic
 * credentials and browser sessions alike (session-auth.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { parseBasicAuth } from "./auth.js";
import { authenticateRequest, hasSessionCookie, liveSession } from "./session-auth.js";
import { sendApiError } from "./error-handler.js";
import { bodyOverLimit, requestTooLarge } from "./body/size-limit.js";
import { readMultipartBody } from "./body/multipart.js";
import { rateLimitError } from "./rate-limit.js";
import { subdomainFromHost } from "../lib/realm-host.js";
import { userAgentProduct } from "../lib/user-agent.js";
import { ANSWERED_LATER, type ApiRequest, type AuthedRequest, type PublicView, type View } from "./request.js";
import { sendJson, sendJsonText, successJson } from "./response.js";
import { turnEnd } from "../lib/turn-end.js";
import type { Method, RouteDef } from "./route.js";

const ALL_METHODS = ["GET", "HEAD", "POST", "PATCH", "DELETE", "PUT", "OPTIONS"] as const;
export const API_PREFIXES = ["/api/v1", "/json"] as const;

/** `/users/{user_id:int}/x` → `/users/:user_id(^\d+$)/x`; `{name*}` → wildcard. */
export function toFastifyPath(path: string): string {
  return path
    .replace(/\{(\w+):int\}/g, (_, name: string) => `:${name}(^\\d+$)`)
    .replace(/\{(\w+)\*\}$/, "*")
    .replace(/\{(\w+)\}/g, (_, name: string) => `:${name}`);
}

export function registerRoutes(app: FastifyInstance, ctx: AppContext, routes: readonly RouteDef[]): void {
  const byPath = new Map<string, RouteDef[]>();
  for (const r of routes) {
    const list = byPath.get(r.path) ?? [];
    if (list.some((x) => x.method === r.method)) throw new Error(`Duplicate route ${r.method} ${r.path}`);
    list.push(r);
    byPath.set(r.path, list);
  }
  for (const prefix of API_PREFIXES) {
    for (const [path, defs] of byPath) registerPath(app, ctx, `${prefix}${toFastifyPath(path)}`, path, defs);
  }
}

function registerPath(app: FastifyInstance, ctx: AppContext, url: string, path: string, defs: RouteDef[]): void {
  const wildcardName = /\{(\w+)\*\}$/.exec(path)?.[1];
  const byMethod = new Map<string, RouteDef>(defs.map((d) => [d.method, d]));
  const allowed = defs.map((d) => d.method as string);
  if (byMethod.has("GET")) allowed.push("HEAD");
  app.route({
    method: [...ALL_METHODS],
    url,
    ...bodyLimitOptions(defs),
    handler: async (request, reply) => {
      if (request.isMultipart()) await readMultipartBody(request);
      // The body was cut at the limit: its parameters are incomplete.
      if (bodyOverLimit(request)) throw requestTooLarge();
      const method = request.method === "HEAD" ? "GET" : request.method;
      if (request.method === "OPTIONS") {
        return reply.code(204).header("allow", [...allowed].sort().join(", ")).send();
      }
      const def = byMethod.get(method as Method);
      if (!def) {
        return sendJson(reply, 405, {
          result: "error",
          msg: "Method Not Allowed",
          allowed_methods: allowed,
          code: "METHOD_NOT_ALLOWED",
        });
      }
      const pathParams = { ...(request.params as Record<string, string>) };
      if (wildcardName) pathParams[wildcardName] = pathParams["*"];
      return dispatch(ctx, def, request, reply, pathParams);
    },
  });
}

/** A path whose routes declare a larger body limit gets it for every parser, multipart included. */
function bodyLimitOptions(defs: readonly RouteDef[]) {
  const limits = defs.map((d) => d.maxBodyBytes).filter((n): n is number => n !== undefined);
  if (limits.length === 0) return {};
  const bodyLimit = Math.max(...limits);
  return { bodyLimit, config: { multipartOptions: { limits: { fieldSize: bodyLimit, fileSize: bodyLimit } } } };
}

async function dispatch(
  ctx: AppContext,
  def: RouteDef,
  request: FastifyRequest,
  reply: FastifyReply,
  pathParams: Record<string, string>,
) {
  const subdomain = subdomainFromHost(request.headers.host, ctx.config.externalHost);
  let req: ApiRequest;
  // On a route open to spectators, a dead session reads anonymously: look it up once here.
  const spectatorSession = def.auth === "optional" && request.headers.authorization === undefined && hasSessionCookie(request) ? await liveSession(ctx, request) : undefined;
  if (def.auth === "user" || (def.auth === "optional" && (request.headers.authorization !== undefined || spectatorSession !== undefined))) {
    const { user, realm, session } = await authenticateRequest(ctx, request, subdomain, spectatorSession);
    if (!def.exemptFromRateLimit) await applyUserRateLimit(ctx, reply, user.id);
    req = makeRequest(ctx, request, reply, realm, user, pathParams);
    if (session) req.sessionId = session.id;
  } else {
    if (def.auth === "optional") parseBasicAuth(request.headers.authorization);
    // Another process (the CLI) may have written since the last request: flush before reading caches.
    ctx.caches.checkExternalWrites();
    const realm = await ctx.caches.realms.findBySubdomain(ctx.db, subdomain);
    if (!realm && def.rootWithoutRealm && subdomain === "") return sendJson(reply, 200, { result: "success", msg: "", ...(await def.rootWithoutRealm(ctx, request)) });
    if (!realm) throw def.unknownRealmError?.() ?? new ApiError("Invalid subdomain", { status: 404, code: "NONEXISTENT_SUBDOMAIN" });
    req = makeRequest(ctx, request, reply, realm, null, pathParams);
  }
  const data = def.auth === "user" ? await (def.handler as View)(req as AuthedRequest) : await (def.handler as PublicView)(req);
  // A waiting long-poll: the view hijacked the reply and answers when its queue wakes it.
  if (data === ANSWERED_LATER) return reply;
  const body = successJson(req, data);
  // The answers of a turn are written together (turn-end.ts).
  await turnEnd();
  return sendJsonText(reply, 200, body);
}

/** Upstream's per-user API limit, with its X-RateLimit-* headers on every response. */
async function applyUserRateLimit(ctx: AppContext, reply: FastifyReply, userId: number): Promise<void> {
  const max = ctx.config.rateLimitPerMinute;
  if (max <= 0) return;
  const decision = await ctx.rateLimiter.hit(`api:${userId}`, { seconds: 60, max });
  reply.header("X-RateLimit-Limit", String(decision.limit));
  reply.header("X-RateLimit-Remaining", String(decision.remaining));
  reply.header("X-RateLimit-Reset", String(decision.reset));
  if (decision.retryAfter > 0) throw rateLimitError(decision);
}

function makeRequest(
  ctx: AppContext,
  raw: FastifyRequest,
  reply: FastifyReply,
  realm: ApiRequest["realm"],
  user: ApiRequest["user"],
  pathParams: Record<string, string>,
): ApiRequest {
  const params = collectParams(raw);
  const client = params.get("client");
  return {
    raw,
    reply,
    ctx,
    realm,
    user,
    params,
    usedParams: new Set(),
    usedFramework: false,
    pathParams,
    clientName: client ?? clientFromUserAgent(raw.headers["user-agent"]),
  };
}

/** Body parameters win over query-string parameters of the same name; the last repeated value wins. */
function collectParams(raw: FastifyRequest): Map<string, string> {
  const params = new Map<string, string>();
  const add = (source: unknown) => {
    if (!source || typeof source !== "object") return;
    for (const [k, value] of Object.entries(source as Record<string, unknown>)) {
      if (params.has(k)) continue;
      const last = Array.isArray(value) ? value[value.length - 1] : value;
      if (typeof last === "string") params.set(k, last);
    }
  };
  add(raw.body);
  add(raw.query);
  return params;
}

function clientFromUserAgent(ua: string | undefined): string {
  const product = userAgentProduct(ua);
  return /^[\w.-]{1,30}$/.test(product) ? product : "API";
}

export { sendApiError };
