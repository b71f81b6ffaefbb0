#!/usr/bin/env node
/**
 * Rebuilds dist/ only when a source changed: compares the newest modification time under
 * src/, bench/ and the build's config files with dist/.build-stamp, written after each
 * successful build. `npm start` runs this, so a start with nothing changed skips tsc.
 * Exit code: tsc's when it builds, 0 otherwise.
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

const builtAt = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
const changedAt = Math.max(...inputs.map((i) => newest(path.join(root, i))));
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
