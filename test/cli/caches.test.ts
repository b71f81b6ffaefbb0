/**
 * The CLI writes next to a running server (another process): the server's caches must
 * not hide the change. SQLite: the server sees the WAL's commit counter move; PostgreSQL (with
 * TEST_DATABASE_URL): the CLI sends NOTIFY and the server LISTENs. Each CLI change is
 * visible on the very next request.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDb, type TestDb } from "../support/db.js";
import { CLI, ROOT, cliEnv, ensureBuilt, runCli, tempDataDir } from "./run-cli.js";

vi.setConfig({ testTimeout: 120_000 });

let dataDir: string;
let pgDb: TestDb | undefined;
let env: NodeJS.ProcessEnv;
let server: ChildProcess | undefined;
let port = 0;
let member: { email: string; api_key: string };

beforeAll(async () => {
  await ensureBuilt();
  dataDir = tempDataDir();
  if (process.env.TEST_DATABASE_URL) pgDb = await createTestDb();
  env = cliEnv({ PARLEY_DATA_DIR: dataDir, DATABASE_URL: pgDb?.url, PARLEY_EXTERNAL_HOST: "chat.test", PARLEY_RATE_LIMIT_PER_MINUTE: "0" });
  const cli = async (args: string[]) => {
    const r = await runCli(args, env);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Record<string, any>;
  };
  await cli(["create-realm", "--name", "Cached Org", "--owner-email", "owner@chat.test", "--owner-name", "Owner", "--json"]);
  member = await cli(["create-user", "--email", "member@chat.test", "--full-name", "Member", "--json"]) as typeof member;
  server = spawn(process.execPath, [CLI, "serve", "--port", "0"], { env, cwd: ROOT });
  let log = "";
  server.stdout!.setEncoding("utf8");
  port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${log}`)), 60_000);
    server!.stdout!.on("data", (chunk: string) => {
      log += chunk;
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
}, 240_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  await pgDb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function me(): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/users/me`, {
    headers: { authorization: `Basic ${Buffer.from(`${member.email}:${member.api_key}`).toString("base64")}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function cli(...args: string[]): Promise<void> {
  const r = await runCli(args, env);
  expect(r.code, r.stderr).toBe(0);
}

describe(`CLI writes next to a running server (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  it("a role change shows on the next request", async () => {
    expect((await me()).body.is_admin).toBe(false);
    await cli("change-role", "--email", member.email, "--role", "administrator");
    expect((await me()).body.is_admin).toBe(true);
    await cli("change-role", "--email", member.email, "--role", "member");
    expect((await me()).body.is_admin).toBe(false);
  });

  it("a deactivation refuses the next request, a reactivation lets it in", async () => {
    expect((await me()).status).toBe(200);
    await cli("deactivate-user", "--email", member.email);
    const refused = await me();
    expect([refused.status, refused.body.msg]).toEqual([401, "Account is deactivated"]);
    await cli("reactivate-user", "--email", member.email);
    expect((await me()).status).toBe(200);
  });

  it("a password reset ends the user's browser sessions on the next request", async () => {
    const reset = await runCli(["reset-password", "--email", member.email, "--json"], env);
    expect(reset.code, reset.stderr).toBe(0);
    const { password } = JSON.parse(reset.stdout) as { password: string };
    const base = `http://127.0.0.1:${port}`;
    const page = await fetch(`${base}/login/`);
    const csrfCookie = page.headers.getSetCookie().map((h) => h.split(";")[0]).find((h) => h.startsWith("csrftoken="))!;
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(await page.text())![1];
    const login = await fetch(`${base}/accounts/login/`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
      body: new URLSearchParams({ username: member.email, password, csrfmiddlewaretoken: token }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.getSetCookie().map((h) => h.split(";")[0]).join("; ");
    const bySession = () => fetch(`${base}/json/users/me`, { headers: { cookie } });
    expect((await bySession()).status).toBe(200);
    await cli("reset-password", "--email", member.email, "--json");
    const refused = await bySession();
    expect([refused.status, ((await refused.json()) as { msg: string }).msg]).toEqual([401, "Not logged in: API authentication or user session required"]);
  });
});
