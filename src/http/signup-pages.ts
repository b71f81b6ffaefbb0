/**
 * The invitation link's sign-up step: GET /join/{key}/ shows a minimal HTML form (name,
 * password, and the email address for reusable links); POST /join/{key}/ creates the
 * account through doAcceptInvite, starts a browser session and sends the browser to the
 * web app at /.
 */
import { readMultipartBody } from "./body/multipart.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { Invite, Realm } from "../db/schema.js";
import { findRealmBySubdomain } from "../db/queries/realms.js";
import { doAcceptInvite, findUsableInvite, LINK_NOT_USABLE } from "../actions/invite-accept.js";
import { escapeAttr, escapeText } from "../lib/markdown/escape.js";
import { subdomainFromHost } from "../lib/realm-host.js";
import { startSessionAndRedirect } from "./login-pages.js";
import { formField, htmlPage, sendHtml } from "./html-pages.js";
import { csrfRefused, formCsrfProblem, formCsrfToken } from "./form-csrf.js";

function form(realm: Realm, invite: Invite, csrfToken: string, values: { email?: string; full_name?: string }, error: string | null): string {
  const emailField = invite.is_multiuse
    ? `<p><label>Email <input type="email" name="email" required value="${escapeAttr(values.email ?? "")}"></label></p>`
    : `<p>Email: ${escapeText(invite.email)}</p>`;
  return htmlPage(
    `Join ${realm.name}`,
    `${error === null ? "" : `<p role="alert">${escapeText(error)}</p>`}
<form method="post">
<input type="hidden" name="csrfmiddlewaretoken" value="${escapeAttr(csrfToken)}">
${emailField}
<p><label>Full name <input type="text" name="full_name" required maxlength="100" value="${escapeAttr(values.full_name ?? "")}"></label></p>
<p><label>Password <input type="password" name="password" required minlength="6"></label></p>
<p><button type="submit">Create account</button></p>
</form>`,
  );
}

const notUsable = (reply: FastifyReply) => sendHtml(reply, 404, htmlPage("Invitation link not valid", `<p>${escapeText(LINK_NOT_USABLE)}</p>`));

async function load(ctx: AppContext, request: FastifyRequest): Promise<{ realm: Realm; invite: Invite } | null> {
  const realm = await findRealmBySubdomain(ctx.db, subdomainFromHost(request.headers.host, ctx.config.externalHost));
  if (!realm || realm.deactivated) return null;
  const invite = await findUsableInvite(ctx, realm, (request.params as { key: string }).key);
  return invite ? { realm, invite } : null;
}

export function registerSignupPages(app: FastifyInstance, ctx: AppContext): void {
  for (const url of ["/join/:key/", "/join/:key"]) {
    app.get(url, async (request, reply) => {
      const found = await load(ctx, request);
      if (!found) return notUsable(reply);
      return sendHtml(reply, 200, form(found.realm, found.invite, formCsrfToken(ctx, request, reply), {}, null));
    });
    app.post(url, async (request, reply) => {
      if (request.isMultipart()) await readMultipartBody(request);
      const found = await load(ctx, request);
      if (!found) return notUsable(reply);
      // The post signs the browser in: a forged one must not sign a victim into someone else's account.
      const csrf = formCsrfProblem(ctx, request, undefined);
      if (csrf !== null) return csrfRefused(reply, csrf);
      const values = { email: formField(request.body, "email"), full_name: formField(request.body, "full_name") };
      try {
        const user = await doAcceptInvite(ctx, found.realm, (request.params as { key: string }).key, {
          email: found.invite.is_multiuse ? values.email : null,
          fullName: values.full_name,
          password: formField(request.body, "password"),
        });
        // Signed in right away: the browser lands in the app (as upstream after sign-up).
        return await startSessionAndRedirect(ctx, request, reply, found.realm, user, "/");
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.message === LINK_NOT_USABLE) return notUsable(reply);
        return sendHtml(reply, 400, form(found.realm, found.invite, formCsrfToken(ctx, request, reply), values, err.message));
      }
    });
  }
}
