/**
 * End-to-end support: a real Parley server process (the built CLI, `dist/`, web app
 * included) on a fresh database with an organization made by the CLI, and headless
 * Chromium driven by playwright-core. Chromium is Debian's (`/usr/bin/chromium`, or
 * PARLEY_CHROMIUM); a missing browser fails the suite with what to install.
 * PARLEY_E2E_SKIP=1 skips the suite, and nothing else does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { expect } from "vitest";
import { createTestDb, type TestDb } from "../support/db.js";
import { freePort } from "../support/server-process.js";
import { CLI, ROOT, cliEnv, ensureBuilt, runCli, tempDataDir } from "../cli/run-cli.js";

export const E2E_SKIPPED = process.env.PARLEY_E2E_SKIP === "1";

export function chromiumPath(): string {
  const path = process.env.PARLEY_CHROMIUM || "/usr/bin/chromium";
  if (!fs.existsSync(path)) {
    throw new Error(`Chromium not found at ${path}: install Debian's chromium package (apt-get install chromium), set PARLEY_CHROMIUM to a Chromium binary, or set PARLEY_E2E_SKIP=1 to skip the browser tests`);
  }
  return path;
}

export interface Person {
  email: string;
  password: string;
  fullName: string;
  userId: number;
  apiKey: string;
}

export interface E2eWorld {
  url: string;
  browser: Browser;
  ada: Person;
  bo: Person;
  serverOutput(): string;
  close(): Promise<void>;
}

/** Builds if needed, creates the organization (owner Ada, member Bo), starts the server and the browser. */
export async function startWorld(): Promise<E2eWorld> {
  const executablePath = chromiumPath();
  await ensureBuilt();
  const dataDir = tempDataDir();
  const pgDb: TestDb | undefined = process.env.TEST_DATABASE_URL ? await createTestDb() : undefined;
  const port = await freePort();
  const env = cliEnv({
    PARLEY_DATA_DIR: dataDir,
    DATABASE_URL: pgDb?.url,
    PORT: String(port),
    PARLEY_EXTERNAL_HOST: `127.0.0.1:${port}`,
    PARLEY_RATE_LIMIT_PER_MINUTE: "0",
    PARLEY_LOGIN_ATTEMPTS_PER_30_MINUTES: "0",
    LOG_LEVEL: "warn",
  });
  const cli = async (args: string[]) => {
    const r = await runCli(args, env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { user_id: number; api_key: string };
    return { userId: out.user_id, apiKey: out.api_key };
  };
  const ada: Person = { email: "ada@acme.test", password: "ada-pass-phrase-1", fullName: "Ada Boss", userId: 0, apiKey: "" };
  const bo: Person = { email: "bo@acme.test", password: "bo-pass-phrase-1", fullName: "Bo Member", userId: 0, apiKey: "" };
  Object.assign(ada, await cli(["create-realm", "--name", "Acme", "--owner-email", ada.email, "--owner-name", ada.fullName, "--password", ada.password, "--json"]));
  Object.assign(bo, await cli(["create-user", "--email", bo.email, "--full-name", bo.fullName, "--password", bo.password, "--role", "member", "--json"]));

  const server: ChildProcess = spawn(process.execPath, [CLI, "serve"], { env, cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  server.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  server.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`server exited: ${output}`);
    const up = await fetch(`${url}/api/v1/server_settings`).then((r) => r.ok, () => false);
    if (up) break;
    if (i > 300) throw new Error(`server did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  return {
    url,
    browser,
    ada,
    bo,
    serverOutput: () => output,
    close: async () => {
      await browser.close();
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once("exit", resolve));
        server.kill("SIGTERM");
        await exited;
      }
      await pgDb?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Session {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the page's scripts (a test expects none). */
  errors: string[];
}

/** A request to the API as `who` with Basic credentials (to set up data the browser then shows). */
export async function apiAs(world: E2eWorld, who: Person, method: string, path: string, params: Record<string, string>): Promise<Record<string, any>> {
  const query = method === "GET" ? `?${new URLSearchParams(params)}` : "";
  const res = await fetch(`${world.url}/api/v1${path}${query}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${who.email}:${who.apiKey}`).toString("base64")}` },
    body: method === "GET" ? undefined : new URLSearchParams(params),
  });
  const body = (await res.json()) as Record<string, any>;
  expect(body.result, JSON.stringify(body)).toBe("success");
  return body;
}

/** A fresh browser context (its own cookies) on the sign-in page. */
export async function openBrowser(world: E2eWorld): Promise<Session> {
  const context = await world.browser.newContext({ baseURL: world.url, viewport: { width: 1200, height: 800 } });
  // Generous: the suite may run beside every other test file on a small machine.
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto("/");
  return { context, page, errors };
}

/** Fills the sign-in form and submits it. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.waitForURL(/\/login\//);
  await page.getByLabel(/email/i).fill(email);
  await page.getByLabel(/password/i).fill(password);
  await page.getByLabel(/password/i).press("Enter");
}

/** Signs in and waits for the app to have loaded its state. */
export async function signInToApp(page: Page, who: Person): Promise<void> {
  await signIn(page, who.email, who.password);
  await page.waitForURL((u) => u.pathname === "/");
  await page.getByRole("navigation", { name: "Channels and conversations" }).waitFor();
}
