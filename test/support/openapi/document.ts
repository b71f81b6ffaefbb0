/**
 * Upstream's OpenAPI file (../shared/reference/openapi/zulip.yaml), parsed once and cached
 * as JSON in the temp folder: parsing the 26,000-line YAML takes seconds, and every test
 * file's process needs it. Null when the file is absent (the contract check is then off).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { Json, JsonObject } from "./json.js";
import { FILE_CORRECTIONS } from "./newer-fields.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** test/support/openapi → worktree root → ../shared */
export const OPENAPI_FILE = path.resolve(HERE, "../../../../shared/reference/openapi/zulip.yaml");

export type { Json, JsonObject } from "./json.js";

let loaded: JsonObject | null | undefined;

export function openapiDocument(): JsonObject | null {
  if (loaded !== undefined) return loaded;
  if (!fs.existsSync(OPENAPI_FILE)) return (loaded = null);
  const text = fs.readFileSync(OPENAPI_FILE, "utf8");
  const digest = crypto.createHash("sha256").update(text).digest("hex").slice(0, 16);
  const cache = path.join(os.tmpdir(), `parley-openapi-${digest}.json`);
  try {
    loaded = JSON.parse(fs.readFileSync(cache, "utf8")) as JsonObject;
  } catch {
    loaded = parse(text) as JsonObject;
    // Write then rename, so a parallel test process never reads half a file.
    const partial = `${cache}.${process.pid}.tmp`;
    fs.writeFileSync(partial, JSON.stringify(loaded));
    fs.renameSync(partial, cache);
  }
  applyCorrections(loaded);
  return loaded;
}

function applyCorrections(doc: JsonObject): void {
  for (const c of FILE_CORRECTIONS) {
    let node: Json = doc;
    for (const key of c.path.slice(0, -1)) node = (node as Record<string | number, Json>)[key];
    const last = c.path[c.path.length - 1];
    if (typeof node !== "object" || node === null || !(last in node)) throw new Error(`OpenAPI correction: no ${c.path.join("/")} in the file`);
    (node as Record<string | number, Json>)[last] = c.value;
  }
}
