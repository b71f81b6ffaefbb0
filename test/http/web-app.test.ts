/**
 * Serving the web app (src/http/web-app.ts): GET / with its headers and the redirect of
 * signed-out visitors, the hashed static files with year-long caching (gzip when accepted),
 * nothing else under /static/web/, and the 503 page before the app is built. The app is
 * built once by the real build script into a temporary folder.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/http/web-app.js";
import { TestBrowser } from "../support/browser.js";
import { OWNER_PASSWORD } from "../support/realm.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { updateUserRow } from "../../src/db/queries/users.js";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
let webDir: string;
let server: TestServer;
let unbuilt: TestServer;
let manifest: { js: string; css: string };
/** Headers of a signed-in browser (a real session, from the login form). */
let SIGNED_IN: Record<string, string>;

beforeAll(async () => {
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-web-"));
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build-web.mjs"), webDir], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  manifest = JSON.parse(fs.readFileSync(path.join(webDir, "manifest.json"), "utf8"));
  server = await startTestServer({ webDir });
  unbuilt = await startTestServer({ webDir: path.join(webDir, "missing") });
  SIGNED_IN = await signIn(server);
});
afterAll(async () => {
  await server?.close();
  await unbuilt?.close();
  fs.rmSync(webDir, { recursive: true, force: true });
});

async function signIn(s: TestServer, who = s.realm.owner): Promise<Record<string, string>> {
  const b = new TestBrowser(s.app, s.realm.host);
  expect((await b.login(who.delivery_email, OWNER_PASSWORD)).statusCode).toBe(303);
  return { host: s.realm.host, cookie: b.cookieHeader() };
}

describe("GET /", () => {
  it("sends visitors without a live session to the sign-in page", async () => {
    const forged = SIGNED_IN.cookie.replace(/sessionid=[^;]+/, `sessionid=${"a".repeat(32)}`);
    for (const cookie of [undefined, "csrftoken=abc", "sessionid=", "sessionid=s3ss10n", "xsessionid=1", forged]) {
      const res = await server.app.inject({ method: "GET", url: "/", headers: { host: server.realm.host, ...(cookie ? { cookie } : {}) } });
      expect(res.statusCode, cookie).toBe(302);
      expect(res.headers.location).toBe("/login/");
      expect(res.headers["cache-control"]).toBe("no-store");
    }
  });

  it("sends a deactivated user's browser to the sign-in page too (no loop between the page and the API)", async () => {
    const member = server.realm.member;
    await updateUserRow(server.db, server.realm.realm.id, member.id, { password_hash: (await server.db.selectFrom("users").select("password_hash").where("id", "=", server.realm.owner.id).executeTakeFirstOrThrow()).password_hash });
    const headers = await signIn(server, member);
    expect((await server.app.inject({ method: "GET", url: "/", headers })).statusCode).toBe(200);
    await updateUserRow(server.db, server.realm.realm.id, member.id, { is_active: 0 });
    server.ctx.caches.flushAll();
    const res = await server.app.inject({ method: "GET", url: "/", headers });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe("/login/");
  });

  it("answers the app's page with a strict policy and revalidation", async () => {
    const res = await server.app.inject({ method: "GET", url: "/", headers: SIGNED_IN });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe-inline");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.body).toContain(`<script type="module" src="/static/web/${manifest.js}"></script>`);
    expect(res.body).toContain(`<link rel="stylesheet" href="/static/web/${manifest.css}">`);
    expect(res.body).toContain('<div id="app">');
    // No inline script: every <script> has a src.
    expect(res.body.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);

    const again = await server.app.inject({ method: "GET", url: "/", headers: { ...SIGNED_IN, "if-none-match": etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.etag).toBe(etag);
    const stale = await server.app.inject({ method: "GET", url: "/", headers: { ...SIGNED_IN, "if-none-match": '"other"' } });
    expect(stale.statusCode).toBe(200);
  });

  it("answers 503 with what to run when the app is not built", async () => {
    for (const headers of [{}, SIGNED_IN]) {
      const res = await unbuilt.app.inject({ method: "GET", url: "/", headers });
      expect(res.statusCode).toBe(503);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.body).toContain("The web app has not been built");
      expect(res.body).toContain("npm run build");
    }
    const file = await unbuilt.app.inject({ method: "GET", url: `/static/web/${manifest.js}` });
    expect(file.statusCode).toBe(404);
  });
});

describe("GET /static/web/{file}", () => {
  it("serves the hashed script and stylesheet for a year, gzipped when accepted", async () => {
    for (const [name, type] of [
      [manifest.js, "text/javascript; charset=utf-8"],
      [manifest.css, "text/css; charset=utf-8"],
    ] as const) {
      const onDisk = fs.readFileSync(path.join(webDir, name));
      const plain = await server.app.inject({ method: "GET", url: `/static/web/${name}` });
      expect(plain.statusCode).toBe(200);
      expect(plain.headers["content-type"]).toBe(type);
      expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.headers.vary).toBe("Accept-Encoding");
      expect(plain.rawPayload.equals(onDisk)).toBe(true);

      const gz = await server.app.inject({ method: "GET", url: `/static/web/${name}`, headers: { "accept-encoding": "gzip, deflate, br" } });
      expect(gz.statusCode).toBe(200);
      expect(gz.headers["content-encoding"]).toBe("gzip");
      expect(gz.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(zlib.gunzipSync(gz.rawPayload).equals(onDisk)).toBe(true);
      expect(gz.rawPayload.length).toBeLessThan(onDisk.length);
    }
  });

  it("serves nothing but the build's files", async () => {
    for (const url of ["/static/web/manifest.json", `/static/web/${manifest.js}.gz`, "/static/web/..%2Fmanifest.json", "/static/web/%2e%2e%2f%2e%2e%2fpackage.json", "/static/web/nope.js", "/static/web/"]) {
      const res = await server.app.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
    }
  });

  it("keeps the gzipped bundle small", () => {
    // The README states the size; this keeps an accidental heavy dependency from slipping in.
    const total = fs.statSync(path.join(webDir, `${manifest.js}.gz`)).size + fs.statSync(path.join(webDir, `${manifest.css}.gz`)).size;
    expect(total).toBeLessThan(40 * 1024);
  });
});
