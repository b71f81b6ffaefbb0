/**
 * A real Parley server in a child process (for crash tests): the sources are transpiled
 * once to a temporary folder (no type check; `node_modules` linked), then `cli.js serve`
 * runs there against the given database.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { transformWithOxc } from "vite";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

function listTs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return listTs(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

export interface ServerBuild {
  cli: string;
  dir: string;
  remove(): void;
}

/** Transpiles src/ to a fresh folder (vitest's own transformer: well under a second); returns its cli.js. */
export async function buildServer(): Promise<ServerBuild> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-build-"));
  for (const file of listTs(path.join(ROOT, "src"))) {
    const out = await transformWithOxc(fs.readFileSync(file, "utf8"), file, { target: "es2022" });
    const target = path.join(dir, path.relative(ROOT, file)).replace(/\.ts$/, ".js");
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, out.code);
  }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  return { cli: path.join(dir, "src", "cli.js"), dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `cli.js serve` with the environment given; stderr is kept for failure messages. */
export function startServerProcess(cli: string, env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [cli, "serve"], {
    env: { ...process.env, LOG_LEVEL: "warn", PARLEY_RATE_LIMIT_PER_MINUTE: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}
