/**
 * Runs the real, built `parley` command as a child process. The build runs once per test
 * run, and only when sources changed (the same freshness check as `npm start`); a lock
 * directory keeps two test files from building at once.
 */
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const CLI = path.join(ROOT, "dist/src/cli.js");
const BUILD_LOCK = path.join(ROOT, "dist/.build-lock");

export async function ensureBuilt(): Promise<void> {
  fs.mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  for (let waited = 0; ; waited += 200) {
    try {
      fs.mkdirSync(BUILD_LOCK);
      break;
    } catch {
      if (waited > 120_000) throw new Error("timed out waiting for another build");
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/build-if-stale.mjs")], { encoding: "utf8", timeout: 180_000 });
    if (r.status !== 0) throw new Error(`build failed: ${r.stderr}${r.stdout}`);
  } finally {
    fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a command sees: the test's, less anything that would pick another database. */
export function cliEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "info" };
  delete env.DATABASE_URL;
  delete env.PARLEY_DATA_DIR;
  delete env.PARLEY_SMTP_URL;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: timeoutMs, encoding: "utf8" }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number | null) : 0;
      resolve({ code: typeof code === "number" ? code : null, stdout, stderr });
    });
  });
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "parley-cli-"));
}

/** No line of a stack trace ("    at fn (file:line)"). */
export function hasStack(text: string): boolean {
  return /^\s+at .+[:(]/m.test(text);
}
