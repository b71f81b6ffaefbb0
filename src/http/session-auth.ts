/**
 * Authentication by browser session: the `sessionid` cookie, looked up by its hash in the
 * session cache (flushed by every change of the user, the realm or the sessions, so an ended
 * session is refused on the next request), then the same account checks as Basic
 * credentials. Unsafe methods need the session's CSRF token in X-CSRFToken, and a
 * cross-site Origin is refused, as Django's CSRF middleware does for upstream.
 */
import type { FastifyRequest } from "fastify";
import { nowSeconds, type AppContext } from "../context.js";
import type { SessionEntry } from "../caches/sessions.js";
import type { Realm, Session, User } from "../db/schema.js";
import { touchSession } from "../db/queries/sessions.js";
import { ApiError } from "../errors.js";
import { sessionTokenHash } from "../actions/sessions.js";
import { csrfTokenProblem } from "../lib/csrf.js";
import { subdomainFromHost } from "../lib/realm-host.js";
import { authenticate, checkAccount, notLoggedIn, requireCredentials } from "./auth.js";
import { isHttpsRequest, readCookie, SESSION_COOKIE } from "./cookies.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);
/** Session tokens are 32 letters and digits; anything else is not looked up. */
const TOKEN_FORMAT = /^[A-Za-z0-9]{32}$/;
/** last_seen_at is written at most this often per session (not on every request). */
const SEEN_RESOLUTION_SECONDS = 600;

export function csrfFailure(reason: string): ApiError {
  return new ApiError(`CSRF error: ${reason}`, { status: 403, code: "CSRF_FAILED", data: { reason } });
}

/**
 * The session the request's cookie names, if it is live (known and unexpired); no account
 * checks. Undefined for no cookie, a malformed one, an unknown or an expired session.
 */
export async function liveSession(ctx: AppContext, request: FastifyRequest): Promise<SessionEntry | undefined> {
  const token = readCookie(request, SESSION_COOKIE);
  if (token === undefined || !TOKEN_FORMAT.test(token)) return undefined;
  // Another process (the CLI) may have written since the last request: flush before reading caches.
  ctx.caches.checkExternalWrites();
  const entry = await ctx.caches.sessions.find(ctx.db, sessionTokenHash(token));
  if (!entry || entry.session.expires_at <= nowSeconds(ctx)) return undefined;
  return entry;
}

/** The caller, and the session when authenticated by one. */
export interface Authenticated {
  user: User;
  realm: Realm;
  session?: Session;
}

/**
 * The caller by Basic credentials when an Authorization header is sent, else by session
 * cookie (CSRF-checked for unsafe methods); 401 when neither is there. `session` is the
 * request's live session when the caller has already looked it up.
 */
export async function authenticateRequest(ctx: AppContext, request: FastifyRequest, subdomain: string, session?: SessionEntry): Promise<Authenticated> {
  if (request.headers.authorization !== undefined) return authenticate(ctx, requireCredentials(request), subdomain);
  const entry = session ?? (await liveSession(ctx, request));
  if (!entry) throw notLoggedIn();
  checkAccount(entry, subdomain);
  if (!SAFE_METHODS.has(request.method)) checkCsrf(ctx, request, entry.session.csrf_secret);
  await noteSeen(ctx, entry);
  return entry;
}

/**
 * The browser's session when it is live and its account may use this host (the web app's
 * pages: signed in, or off to /login/); undefined otherwise, never an error.
 */
export async function signedInSession(ctx: AppContext, request: FastifyRequest): Promise<SessionEntry | undefined> {
  const entry = await liveSession(ctx, request);
  if (!entry) return undefined;
  try {
    checkAccount(entry, subdomainFromHost(request.headers.host, ctx.config.externalHost));
    return entry;
  } catch (err) {
    if (err instanceof ApiError) return undefined;
    throw err;
  }
}

/** Whether the request carries a session cookie at all (routes open to spectators then try it). */
export function hasSessionCookie(request: FastifyRequest): boolean {
  return readCookie(request, SESSION_COOKIE) !== undefined;
}

function checkCsrf(ctx: AppContext, request: FastifyRequest, secret: string): void {
  const originProblem = crossOrigin(ctx, request);
  if (originProblem !== null) throw csrfFailure(originProblem);
  const header = request.headers["x-csrftoken"];
  const problem = csrfTokenProblem(Array.isArray(header) ? header[0] : header, secret, "header");
  if (problem !== null) throw csrfFailure(problem);
}

/**
 * Django's origin check: a sent Origin must be this server's host. Over a request known to
 * be HTTPS only https:// matches; otherwise https:// is accepted too, because behind a
 * TLS proxy without PARLEY_TRUST_PROXY the server cannot tell (and would refuse every
 * browser write).
 */
export function crossOrigin(ctx: AppContext, request: FastifyRequest): string | null {
  const origin = request.headers.origin;
  if (origin === undefined) return null;
  const host = (request.headers.host ?? "").toLowerCase();
  const schemes = isHttpsRequest(request, ctx.config) ? ["https"] : ["http", "https"];
  if (schemes.some((scheme) => origin.toLowerCase() === `${scheme}://${host}`)) return null;
  return `Origin checking failed - ${origin} does not match any trusted origins.`;
}

/** Records activity now and then: one UPDATE per session per SEEN_RESOLUTION_SECONDS at most. */
async function noteSeen(ctx: AppContext, entry: SessionEntry): Promise<void> {
  const now = nowSeconds(ctx);
  if (now - entry.seen.at < SEEN_RESOLUTION_SECONDS) return;
  entry.seen.at = now;
  await touchSession(ctx.db, entry.realm.id, entry.session.id, now);
}
