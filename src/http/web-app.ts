/**
 * The browser app (web/, built by scripts/build-web.mjs into dist/web/ or PARLEY_WEB_DIR):
 * GET / answers its page, from which visitors without a live session are sent to the
 * sign-in page; GET /static/web/{file} its script and stylesheet, whose names carry a
 * content hash, so they are cached for a year. The page allows no inline script (CSP).
 * Before the app is built, GET / answers 503 with what to run.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../context.js";
import { IMMUTABLE } from "./cache-control.js";
import { sendNotFound } from "./error-handler.js";
import { redirect } from "./html-pages.js";
import { signedInSession } from "./session-auth.js";

/** Scripts and styles only from this server; images also as data: and blob: (pasted previews); no frames, plugins or foreign forms. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");
const TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };

interface StaticFile {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
}

interface WebBuild {
  html: string;
  etag: string;
  files: Map<string, StaticFile>;
}

/** Where the built app is: PARLEY_WEB_DIR, else dist/web of the project this module belongs to. */
export function defaultWebDir(): string {
  let dir = import.meta.dirname;
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) return path.resolve("dist", "web");
    dir = up;
  }
  return path.join(dir, "dist", "web");
}

/** Reads the build named by manifest.json; undefined while there is none. */
function loadBuild(dir: string): WebBuild | undefined {
  let manifest: { js?: unknown; css?: unknown };
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
  } catch {
    return undefined;
  }
  const files = new Map<string, StaticFile>();
  for (const name of [manifest.js, manifest.css]) {
    // Only plain file names from the manifest: nothing outside the folder can be named.
    if (typeof name !== "string" || !/^[\w.-]+\.(js|css)$/.test(name)) return undefined;
    const full = path.join(dir, name);
    if (!fs.existsSync(full)) return undefined;
    const gzPath = `${full}.gz`;
    files.set(name, { body: fs.readFileSync(full), gzip: fs.existsSync(gzPath) ? fs.readFileSync(gzPath) : undefined, type: TYPES[path.extname(name)]! });
  }
  const html = page(manifest.js as string, manifest.css as string);
  return { html, etag: `"${createHash("sha256").update(html).digest("base64url").slice(0, 27)}"`, files };
}

function page(js: string, css: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Parley</title>
<link rel="stylesheet" href="/static/web/${css}">
<script type="module" src="/static/web/${js}"></script>
</head>
<body>
<div id="app"><noscript>Parley's web app needs JavaScript.</noscript></div>
</body>
</html>
`;
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parley: web app not built</title></head>
<body><main><h1>The web app has not been built</h1>
<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds what changed) in Parley's folder, then reload this page.
The API under <code>/api/v1</code> works without it.</p></main></body></html>
`;

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", CONTENT_SECURITY_POLICY)
    .header("x-content-type-options", "nosniff")
    .header("x-frame-options", "DENY")
    .header("referrer-policy", "same-origin");
}

export function registerWebApp(app: FastifyInstance, ctx: AppContext): void {
  const dir = ctx.config.webDir ?? defaultWebDir();
  let build: WebBuild | undefined;
  // Read once the build exists; until then each request looks again (a build may finish meanwhile).
  const current = () => (build ??= loadBuild(dir));

  app.get("/", async (req, reply) => {
    const web = current();
    if (!web) return pageHeaders(reply).code(503).header("content-type", "text/html; charset=utf-8").header("cache-control", "no-store").send(NOT_BUILT);
    if (!(await signedInSession(ctx, req))) return redirect(reply, 302, "/login/");
    pageHeaders(reply).header("cache-control", "no-cache").header("etag", web.etag).header("vary", "Cookie");
    if (req.headers["if-none-match"] === web.etag) return reply.code(304).send();
    return reply.code(200).header("content-type", "text/html; charset=utf-8").send(web.html);
  });

  app.get("/static/web/:file", (req, reply) => {
    const { file } = req.params as { file: string };
    const f = current()?.files.get(file);
    if (!f) return sendNotFound(reply);
    const gzip = f.gzip !== undefined && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    reply.code(200).header("content-type", f.type).header("cache-control", IMMUTABLE).header("vary", "Accept-Encoding").header("x-content-type-options", "nosniff");
    if (gzip) reply.header("content-encoding", "gzip");
    return reply.send(gzip ? f.gzip : f.body);
  });
}
