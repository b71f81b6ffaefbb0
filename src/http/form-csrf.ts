/**
 * CSRF protection of the server-rendered forms (sign-in, sign-up, logout), as Django's
 * middleware does it for upstream: the page carries a masked token in the hidden
 * `csrfmiddlewaretoken` field, and the post must bring it back matching the `csrftoken`
 * cookie's secret (double submit) or, once signed in, the session's secret.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { CSRF_REASONS, csrfTokenProblem, maskCsrfSecret, newCsrfSecret, secretOfCookie } from "../lib/csrf.js";
import { escapeText } from "../lib/markdown/escape.js";
import { CSRF_COOKIE, isHttpsRequest, readCookie, setCsrfCookie } from "./cookies.js";
import { formField, htmlPage, sendHtml } from "./html-pages.js";
import { crossOrigin } from "./session-auth.js";

/** Django's CSRF_COOKIE_AGE: the pre-sign-in token outlives a visit (one year). */
const CSRF_COOKIE_AGE = 31449600;

/** A fresh mask of the visitor's CSRF secret for a form; the secret is made and set as a cookie when absent. */
export function formCsrfToken(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): string {
  let secret = secretOfCookie(readCookie(request, CSRF_COOKIE));
  if (secret === null) {
    secret = newCsrfSecret();
    setCsrfCookie(reply, isHttpsRequest(request, ctx.config), maskCsrfSecret(secret), CSRF_COOKIE_AGE);
  }
  return maskCsrfSecret(secret);
}

/**
 * Why a posted form fails the check (Django's reason), or null: a foreign Origin, no secret
 * to check against, or a token (form field, else X-CSRFToken) that does not match it.
 */
export function formCsrfProblem(ctx: AppContext, request: FastifyRequest, sessionSecret: string | undefined): string | null {
  const origin = crossOrigin(ctx, request);
  if (origin !== null) return origin;
  const secret = sessionSecret ?? secretOfCookie(readCookie(request, CSRF_COOKIE));
  if (secret === null) return CSRF_REASONS.noCookie;
  const posted = formField(request.body, "csrfmiddlewaretoken");
  const header = request.headers["x-csrftoken"];
  if (posted === "" && typeof header === "string") return csrfTokenProblem(header, secret, "header");
  return csrfTokenProblem(posted, secret, "POST");
}

/** Django's 403 page for a refused form. */
export function csrfRefused(reply: FastifyReply, reason: string) {
  return sendHtml(
    reply,
    403,
    htmlPage("Forbidden", `<p role="alert">CSRF verification failed. Request aborted: ${escapeText(reason)}</p><p><a href="/login/">Log in again</a></p>`),
  );
}
