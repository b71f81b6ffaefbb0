/**
 * The browser's sign-in, as upstream's web app does it: GET /login/ (a plain HTML form),
 * POST /accounts/login/ (the same password check as POST /api/v1/fetch_api_key, then a
 * server-side session: the `sessionid` and `csrftoken` cookies) and POST /accounts/logout/.
 * The forms are protected like Django's: the hidden `csrfmiddlewaretoken` must match the
 * `csrftoken` cookie (before sign-in) or the session's secret (after).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import type { Realm } from "../db/schema.js";
import { doEndSession, doStartSession } from "../actions/sessions.js";
import { ApiError } from "../errors.js";
import { maskCsrfSecret } from "../lib/csrf.js";
import { escapeAttr, escapeText } from "../lib/markdown/escape.js";
import { subdomainFromHost } from "../lib/realm-host.js";
import { isValidEmail } from "../lib/user-validation.js";
import { clearSessionCookies, isHttpsRequest, readCookie, SESSION_COOKIE, setSessionCookies } from "./cookies.js";
import { csrfRefused, formCsrfProblem, formCsrfToken } from "./form-csrf.js";
import { formField, htmlPage, redirect, sendHtml } from "./html-pages.js";
import { checkPasswordLogin } from "./password-login.js";
import { liveSession, signedInSession } from "./session-auth.js";

/** Django's form message (the field's name is "email"). */
export const INVALID_LOGIN = "Please enter a correct email and password. Note that both fields may be case-sensitive.";
const deactivatedAccount = (email: string) =>
  `Your account ${email} has been deactivated. Please contact your organization administrator to reactivate it.`;
const REALM_DEACTIVATED = "This organization has been deactivated.";
const tooManyAttempts = (seconds: number) =>
  `You're making too many attempts to sign in. Try again in ${seconds} seconds or contact your organization administrator for help.`;
const MAX_NEXT_LENGTH = 2000;

/**
 * `next` when it is a path on this site ("/#narrow/…"), else "/": never another host
 * ("//evil", "/\evil", "https://…") nor anything with spaces or control characters.
 */
export function safeNext(value: string | undefined): string {
  if (value === undefined || value.length > MAX_NEXT_LENGTH) return "/";
  if (!/^\/(?![/\\])[\x21-\x7e]*$/.test(value) || value.includes("\\")) return "/";
  return value;
}

function loginForm(realm: Realm, csrfToken: string, values: { email: string; next: string }, error: string | null): string {
  const nextField = values.next === "/" ? "" : `\n<input type="hidden" name="next" value="${escapeAttr(values.next)}">`;
  return htmlPage(
    `Log in to ${realm.name}`,
    `${error === null ? "" : `<p role="alert">${escapeText(error)}</p>\n`}<form method="post" action="/accounts/login/">
<input type="hidden" name="csrfmiddlewaretoken" value="${escapeAttr(csrfToken)}">${nextField}
<p><label for="id_username">Email</label> <input type="email" name="username" id="id_username" autocomplete="username" required autofocus value="${escapeAttr(values.email)}"></p>
<p><label for="id_password">Password</label> <input type="password" name="password" id="id_password" autocomplete="current-password" required></p>
<p><button type="submit">Log in</button></p>
</form>`,
  );
}

const noRealm = (reply: FastifyReply) =>
  sendHtml(reply, 404, htmlPage("Organization not found", "<p>There is no organization at this address.</p>"));

async function realmOf(ctx: AppContext, request: FastifyRequest): Promise<Realm | undefined> {
  ctx.caches.checkExternalWrites();
  return ctx.caches.realms.findBySubdomain(ctx.db, subdomainFromHost(request.headers.host, ctx.config.externalHost));
}

/** Renders the form with a fresh mask of the visitor's CSRF secret. */
function showForm(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, realm: Realm, values: { email: string; next: string }, error: string | null) {
  return sendHtml(reply, 200, loginForm(realm, formCsrfToken(ctx, request, reply), values, error));
}

async function loginPage(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const realm = await realmOf(ctx, request);
  if (!realm) return noRealm(reply);
  const next = safeNext((request.query as Record<string, string | undefined>).next);
  if (await signedInSession(ctx, request)) return redirect(reply, 302, next);
  return showForm(ctx, request, reply, realm, { email: "", next }, null);
}

async function login(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const realm = await realmOf(ctx, request);
  if (!realm) return noRealm(reply);
  const csrf = formCsrfProblem(ctx, request, undefined);
  if (csrf !== null) return csrfRefused(reply, csrf);
  const email = formField(request.body, "username").trim();
  const next = safeNext(formField(request.body, "next") || (request.query as Record<string, string | undefined>).next);
  const refuse = (message: string) => showForm(ctx, request, reply, realm, { email, next }, message);
  if (!isValidEmail(email)) return refuse("Enter a valid email address.");
  let outcome;
  try {
    outcome = await checkPasswordLogin(ctx, realm, email, formField(request.body, "password"));
  } catch (err) {
    if (err instanceof ApiError && err.code === "RATE_LIMIT_HIT") return refuse(tooManyAttempts(Math.ceil(Number(err.data["retry-after"]))));
    throw err;
  }
  if (!outcome.ok) {
    if (outcome.reason === "user-deactivated") return refuse(deactivatedAccount(outcome.user.delivery_email));
    return refuse(outcome.reason === "realm-deactivated" ? REALM_DEACTIVATED : INVALID_LOGIN);
  }
  // A session cookie the browser already had is replaced, never reused (no session fixation).
  const previous = readCookie(request, SESSION_COOKIE);
  if (previous !== undefined) await doEndSession(ctx, realm.id, previous);
  await startSessionAndRedirect(ctx, request, reply, realm, outcome.user, next);
}

/** Starts a session for the user, sets its cookies and sends the browser on (303). */
export async function startSessionAndRedirect(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  realm: Realm,
  user: Parameters<typeof doStartSession>[2],
  location: string,
) {
  const session = await doStartSession(ctx, realm, user);
  setSessionCookies(reply, isHttpsRequest(request, ctx.config), { token: session.token, csrfToken: maskCsrfSecret(session.csrfSecret), maxAgeSeconds: session.maxAgeSeconds });
  return redirect(reply, 303, location);
}

async function logout(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const entry = await liveSession(ctx, request);
  const csrf = formCsrfProblem(ctx, request, entry?.session.csrf_secret);
  if (csrf !== null) return csrfRefused(reply, csrf);
  if (entry) await doEndSession(ctx, entry.realm.id, readCookie(request, SESSION_COOKIE)!);
  clearSessionCookies(reply, isHttpsRequest(request, ctx.config));
  return redirect(reply, 303, "/login/");
}

export function registerLoginPages(app: FastifyInstance, ctx: AppContext): void {
  for (const url of ["/login/", "/login"]) app.get(url, (request, reply) => loginPage(ctx, request, reply));
  for (const url of ["/accounts/login/", "/accounts/login"]) app.post(url, (request, reply) => login(ctx, request, reply));
  for (const url of ["/accounts/logout/", "/accounts/logout"]) app.post(url, (request, reply) => logout(ctx, request, reply));
}
