/** The few server-rendered pages (sign-in, invitation sign-up): one plain layout, no scripts. */
import type { FastifyReply } from "fastify";
import { escapeText } from "../lib/markdown/escape.js";

export function htmlPage(title: string, body: string): string {
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

/** No caching (pages carry per-visitor tokens), no framing, no scripts, forms only to this site. */
export function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("x-frame-options", "DENY")
    .header("content-security-policy", "default-src 'none'; form-action 'self'; frame-ancestors 'none'")
    .send(html);
}

/** Sends the browser on (302, or 303 after a form's post); never cached. */
export function redirect(reply: FastifyReply, status: 302 | 303, location: string) {
  return reply.code(status).header("location", location).header("cache-control", "no-store").send();
}

/** A form field's value ("" when absent or not text). */
export function formField(body: unknown, name: string): string {
  const value = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
}
