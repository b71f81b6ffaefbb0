#!/usr/bin/env node
/**
 * Builds the browser app (web/src, Preact) into dist/web/ (or the folder given as the first
 * argument): one minified ES module and one stylesheet with content-hashed names, a
 * precompressed .gz next to each, and manifest.json naming them, which the server reads
 * (src/http/web-app.ts). Files of earlier builds are removed. Prints the gzipped sizes.
 */
import { build } from "esbuild";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.resolve(process.argv[2] ?? path.join(root, "dist", "web"));

const started = Date.now();
const result = await build({
  entryPoints: { app: path.join(root, "web", "src", "main.tsx") },
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2020"],
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  outdir,
  write: false,
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});

fs.rmSync(outdir, { recursive: true, force: true });
fs.mkdirSync(outdir, { recursive: true });
const manifest = { js: "", css: "" };
const sizes = [];
for (const file of result.outputFiles) {
  const name = path.basename(file.path);
  fs.writeFileSync(file.path, file.contents);
  // Level 9 once at build time: the server sends this copy to clients that accept gzip.
  const gz = zlib.gzipSync(file.contents, { level: 9 });
  fs.writeFileSync(`${file.path}.gz`, gz);
  if (name.endsWith(".js")) manifest.js = name;
  else if (name.endsWith(".css")) manifest.css = name;
  sizes.push(`${name} ${(file.contents.length / 1024).toFixed(1)} KiB (gzip ${(gz.length / 1024).toFixed(1)} KiB)`);
}
if (!manifest.js || !manifest.css) throw new Error("build-web: esbuild produced no script or no stylesheet");
fs.writeFileSync(path.join(outdir, "manifest.json"), `${JSON.stringify(manifest)}\n`);
process.stderr.write(`parley: web app built in ${Date.now() - started} ms: ${sizes.join(", ")}\n`);
