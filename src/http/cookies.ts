/**
 * The two cookies of a browser session: `sessionid` (HttpOnly: page scripts never see it)
 * and `csrftoken` (readable by the page, which sends it back as X-CSRFToken). Both
 * SameSite=Lax, and Secure when the request came over HTTPS (behind a proxy only when
 * PARLEY_TRUST_PROXY=true says X-Forwarded-Proto can be believed).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.js";

export const SESSION_COOKIE = "sessionid";
export const CSRF_COOKIE = "csrftoken";

/** Longer Cookie headers are not read at all (browsers send at most a few kilobytes). */
const MAX_COOKIE_HEADER = 8192;

/** The named cookie's value; the first one wins when a name repeats. Undefined when absent or unreadable. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== "string" || header.length > MAX_COOKIE_HEADER) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return undefined;
}

export function isHttpsRequest(request: FastifyRequest, config: Pick<Config, "trustProxy">): boolean {
  if ((request.raw.socket as { encrypted?: boolean }).encrypted === true) return true;
  if (!config.trustProxy) return false;
  const proto = request.headers["x-forwarded-proto"];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(",")[0]?.trim().toLowerCase();
  return first === "https";
}

interface CookieOptions {
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  httpOnly: boolean;
  secure: boolean;
}

function serialize(name: string, value: string, opts: CookieOptions): string {
  const parts = [`${name}=${value}`, `Max-Age=${opts.maxAge}`, "Path=/", "SameSite=Lax"];
  if (opts.maxAge === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (opts.httpOnly) parts.push("HttpOnly");
  if (opts.secure) parts.push("Secure");
  return parts.join("; ");
}

function addSetCookie(reply: FastifyReply, cookie: string): void {
  const existing = reply.getHeader("set-cookie");
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  reply.header("set-cookie", [...list, cookie]);
}

/** Sets the session's cookies: the token and the (masked) CSRF token. */
export function setSessionCookies(reply: FastifyReply, secure: boolean, session: { token: string; csrfToken: string; maxAgeSeconds: number }): void {
  addSetCookie(reply, serialize(SESSION_COOKIE, session.token, { maxAge: session.maxAgeSeconds, httpOnly: true, secure }));
  setCsrfCookie(reply, secure, session.csrfToken, session.maxAgeSeconds);
}

export function setCsrfCookie(reply: FastifyReply, secure: boolean, csrfToken: string, maxAgeSeconds: number): void {
  addSetCookie(reply, serialize(CSRF_COOKIE, csrfToken, { maxAge: maxAgeSeconds, httpOnly: false, secure }));
}

export function clearSessionCookies(reply: FastifyReply, secure: boolean): void {
  addSetCookie(reply, serialize(SESSION_COOKIE, "", { maxAge: 0, httpOnly: true, secure }));
  addSetCookie(reply, serialize(CSRF_COOKIE, "", { maxAge: 0, httpOnly: false, secure }));
}
