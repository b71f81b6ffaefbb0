#!/usr/bin/env node
/**
 * Rebuilds dist/ only when a source changed: compares the newest modification time under
 * src/, bench/ and the build's config files with dist/.build-stamp, written after each
 * successful build; and the web app's sources (web/, scripts/build-web.mjs) with
 * dist/web/manifest.json. `npm start` runs this, so a start with nothing changed skips both.
 * Exit code: the failing build's when one fails, 0 otherwise.
 */
import { spawnSync } from "node:child_process";
import process from "node:process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const stamp = path.join(root, "dist", ".build-stamp");
const inputs = ["src", "bench", "tsconfig.json", "tsconfig.build.json", "package.json"];

function newest(p) {
  let stat;
  try {
    stat = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs; // a deleted or renamed file changes its folder's time
  for (const name of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, name)));
  return max;
}

function buildWebIfStale() {
  const manifest = path.join(root, "dist", "web", "manifest.json");
  const webBuiltAt = fs.existsSync(manifest) ? fs.statSync(manifest).mtimeMs : 0;
  const webChangedAt = Math.max(...["web", "scripts/build-web.mjs", "package.json"].map((i) => newest(path.join(root, i))));
  if (webBuiltAt > webChangedAt) return;
  const web = spawnSync(process.execPath, [path.join(root, "scripts", "build-web.mjs")], { stdio: "inherit" });
  if (web.status !== 0) process.exit(web.status ?? 1);
}

const builtAt = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
const changedAt = Math.max(...inputs.map((i) => newest(path.join(root, i))));
buildWebIfStale();
if (builtAt > changedAt && fs.existsSync(path.join(root, "dist", "src", "cli.js"))) process.exit(0);

process.stderr.write("parley: sources changed; building…\n");
const started = Date.now();
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
const result = spawnSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.build.json")], { stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
fs.writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
// The stamp's time is when the build began: a file saved during the build triggers the next one.
fs.utimesSync(stamp, started / 1000, started / 1000);
process.stderr.write(`parley: built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
