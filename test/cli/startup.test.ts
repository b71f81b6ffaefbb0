/**
 * Start-up and shutdown of the real server, as child processes on a temporary data folder:
 * what the log says, the one-server-per-data-folder lock (stale locks taken over), a port in
 * use, and a clean shutdown that says what it closed. Each process is bounded in time.
 */
import { shebangNodeFlags } from "../../src/cli/node-flags.js";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CLI, ROOT, cliEnv, ensureBuilt, hasStack, runCli, tempDataDir } from "./run-cli.js";

// Each test runs a few processes of a second or so; on a loaded machine that takes longer.
vi.setConfig({ testTimeout: 120_000 });

let dataDir: string;
let server: ChildProcess | undefined;
let log = "";

beforeAll(async () => {
  await ensureBuilt();
  dataDir = tempDataDir();
}, 240_000);

afterAll(() => {
  if (server && server.exitCode === null) server.kill("SIGKILL");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const messages = () =>
  log
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { msg: string }).msg);

function waitFor(pattern: RegExp, ms = 30_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; log:\n${log}`)), ms);
    const check = () => {
      const m = pattern.exec(log);
      if (m) {
        clearTimeout(timer);
        server!.stdout!.off("data", check);
        resolve(m);
      }
    };
    server!.stdout!.on("data", check);
    check();
  });
}

describe("a server on a data folder", () => {
  let port = 0;

  it("takes over a stale lock, logs what it serves, and answers server_settings with no organization yet", async () => {
    // A lock left by a process that is gone (a crash): its pid no longer runs.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    fs.writeFileSync(path.join(dataDir, "parley.lock"), `${dead}\n`);
    server = spawn(process.execPath, [CLI, "serve", "--port", "0"], { env: cliEnv({ PARLEY_DATA_DIR: dataDir, PARLEY_EXTERNAL_HOST: "chat.test" }), cwd: ROOT });
    server.stdout!.setEncoding("utf8").on("data", (c: string) => (log += c));
    port = Number((await waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/))[1]);
    expect(fs.readFileSync(path.join(dataDir, "parley.lock"), "utf8")).toBe(`${server.pid}\n`);
    const msgs = messages();
    expect(msgs).toContain(`Database: SQLite database ${dataDir}/parley.sqlite3; data folder ${dataDir}`);
    expect(msgs.find((m) => m.startsWith("Migrations applied: "))).toMatch(/^Migrations applied: 0001-initial, 0002-notification-bot, .*0010-login-lockout-clears/);
    expect(msgs).toContain("No organization yet: create one with `parley create-realm`");

    const res = await fetch(`http://127.0.0.1:${port}/api/v1/server_settings`);
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ result: "success", realm_url: "http://chat.test", realm_web_public_access_enabled: false });
    expect(body).not.toHaveProperty("realm_name");
  });

  it("refuses a second server on the same data folder, and a server on a port in use", async () => {
    const other = tempDataDir();
    try {
      const [locked, busy] = await Promise.all([
        runCli(["serve", "--port", "0"], cliEnv({ PARLEY_DATA_DIR: dataDir })),
        runCli(["serve", "--port", String(port)], cliEnv({ PARLEY_DATA_DIR: other })),
      ]);
      expect(locked.code).toBe(1);
      expect(locked.stderr.split("\n").slice(1)).toEqual([
        `parley: Another server (pid ${server!.pid}) is using the database in ${dataDir}; stop it first, or give this one another PARLEY_DATA_DIR (lock file ${dataDir}/parley.lock).`,
        "",
      ]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`parley: Port ${port} on 127.0.0.1 is already in use (another server?); stop it or set PORT to a free port.\n`);
      expect(hasStack(locked.stderr + busy.stderr)).toBe(false);
      // The refused server let go of its own data folder's lock.
      expect(fs.existsSync(path.join(other, "parley.lock"))).toBe(false);
      // The first server still holds its lock and answers.
      expect(fs.readFileSync(path.join(dataDir, "parley.lock"), "utf8")).toBe(`${server!.pid}\n`);
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/server_settings`)).status).toBe(200);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it("on SIGTERM logs what it closed, releases the lock and exits 0", async () => {
    const exited = new Promise<number | null>((resolve) => server!.once("exit", (code) => resolve(code)));
    server!.kill("SIGTERM");
    await waitFor(/Released the lock file/, 15_000);
    expect(await exited).toBe(0);
    const msgs = messages();
    expect(msgs).toContain("Shutting down (SIGTERM)");
    // fetch keeps its connection alive, so one client connection may still be open.
    const closed = msgs.find((m) => m.startsWith("Closed "));
    expect(closed).toMatch(/^Closed 0 event queues \(waiting polls answered\), [01] client connections?, and the database \(SQLite database /);
    expect(closed).toContain(`${dataDir}/parley.sqlite3)`);
    expect(fs.existsSync(path.join(dataDir, "parley.lock"))).toBe(false);
  });

  it("refuses a DATABASE_URL that is not postgres:// before anything else", async () => {
    const r = await runCli(["serve"], cliEnv({ PARLEY_DATA_DIR: dataDir, DATABASE_URL: "mysql://root:s3cret@db.example/chat" }));
    expect(r).toEqual({ code: 1, stdout: "", stderr: "parley: DATABASE_URL must start with postgres:// or postgresql:// (got mysql://…): only PostgreSQL is supported by URL\n" });
  });
});

describe("npm start", () => {
  it("does not rebuild when no source changed", async () => {
    const started = Date.now();
    const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/build-if-stale.mjs")], { encoding: "utf8", timeout: 20_000 });
    expect({ status: r.status, stderr: r.stderr, stdout: r.stdout }).toEqual({ status: 0, stderr: "", stdout: "" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts.start).toBe("node scripts/build-if-stale.mjs && node --min-semi-space-size=16 dist/src/cli.js serve");
  });

  it("runs the server with the flags of the parley command's first line", () => {
    const flags = shebangNodeFlags(path.join(ROOT, "src/cli.ts"));
    expect(flags).toEqual(["--min-semi-space-size=16"]);
    expect(shebangNodeFlags(CLI)).toEqual(flags);
    const start = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts.start as string;
    expect(start).toContain(`node ${flags.join(" ")} dist/src/cli.js serve`);
  });
});
