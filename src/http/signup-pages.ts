/**
 * The invitation link's sign-up step: GET /join/{key}/ shows a minimal HTML form (name,
 * password, and the email address for reusable links); POST /join/{key}/ creates the
 * account through doAcceptInvite. Deliberately small: the web client comes later.
 */
import { readMultipartBody } from "./body/multipart.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { Invite, Realm } from "../db/schema.js";
import { findRealmBySubdomain } from "../db/queries/realms.js";
import { doAcceptInvite, findUsableInvite, LINK_NOT_USABLE } from "../actions/invite-accept.js";
import { escapeAttr, escapeText } from "../lib/markdown/escape.js";
import { realmUrl, subdomainFromHost } from "../lib/realm-host.js";

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeText(title)}</title></head>
<body>
<main>
<h1>${escapeText(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

function form(realm: Realm, invite: Invite, values: { email?: string; full_name?: string }, error: string | null): string {
  const emailField = invite.is_multiuse
    ? `<p><label>Email <input type="email" name="email" required value="${escapeAttr(values.email ?? "")}"></label></p>`
    : `<p>Email: ${escapeText(invite.email)}</p>`;
  return page(
    `Join ${realm.name}`,
    `${error === null ? "" : `<p role="alert">${escapeText(error)}</p>`}
<form method="post">
${emailField}
<p><label>Full name <input type="text" name="full_name" required maxlength="100" value="${escapeAttr(values.full_name ?? "")}"></label></p>
<p><label>Password <input type="password" name="password" required minlength="6"></label></p>
<p><button type="submit">Create account</button></p>
</form>`,
  );
}

function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply.code(status).header("content-type", "text/html; charset=utf-8").header("cache-control", "no-store").send(html);
}

const notUsable = (reply: FastifyReply) => sendHtml(reply, 404, page("Invitation link not valid", `<p>${escapeText(LINK_NOT_USABLE)}</p>`));

async function load(ctx: AppContext, request: FastifyRequest): Promise<{ realm: Realm; invite: Invite } | null> {
  const realm = await findRealmBySubdomain(ctx.db, subdomainFromHost(request.headers.host, ctx.config.externalHost));
  if (!realm || realm.deactivated) return null;
  const invite = await findUsableInvite(ctx, realm, (request.params as { key: string }).key);
  return invite ? { realm, invite } : null;
}

function field(body: unknown, name: string): string {
  const value = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
}

export function registerSignupPages(app: FastifyInstance, ctx: AppContext): void {
  for (const url of ["/join/:key/", "/join/:key"]) {
    app.get(url, async (request, reply) => {
      const found = await load(ctx, request);
      if (!found) return notUsable(reply);
      return sendHtml(reply, 200, form(found.realm, found.invite, {}, null));
    });
    app.post(url, async (request, reply) => {
      if (request.isMultipart()) await readMultipartBody(request);
      const found = await load(ctx, request);
      if (!found) return notUsable(reply);
      const values = { email: field(request.body, "email"), full_name: field(request.body, "full_name") };
      try {
        const user = await doAcceptInvite(ctx, found.realm, (request.params as { key: string }).key, {
          email: found.invite.is_multiuse ? values.email : null,
          fullName: values.full_name,
          password: field(request.body, "password"),
        });
        const url = realmUrl(found.realm.string_id, ctx.config.externalHost);
        return sendHtml(
          reply,
          200,
          page(`Welcome to ${found.realm.name}`, `<p>Your account ${escapeText(user.delivery_email)} has been created. Sign in at <a href="${escapeAttr(url)}">${escapeText(url)}</a>.</p>`),
        );
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.message === LINK_NOT_USABLE) return notUsable(reply);
        return sendHtml(reply, 400, form(found.realm, found.invite, values, err.message));
      }
    });
  }
}
