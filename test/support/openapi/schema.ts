/**
 * Turns one OpenAPI 3.0 schema of upstream's file into a JSON Schema that ajv checks
 * with upstream's own reading rules (openapi/README.md):
 * - `$ref`s are resolved first, then `allOf` is merged naively, as upstream's
 *   `naively_merge_allOf` does: objects merged key by key, lists concatenated, the first
 *   scalar wins. That makes `allOf: [JsonSuccessBase, {additionalProperties: false, ...}]`
 *   mean "exactly these fields".
 * - `nullable: true` also admits `null`.
 * - `oneOf` alternatives may overlap, so `oneOf` becomes `anyOf`.
 * - `example(s)`, `description`, `deprecated`, `format` and `x-*` keys are documentation here.
 */
import type { Json, JsonObject } from "./json.js";

const DOCUMENTATION_KEYS = new Set(["example", "examples", "description", "deprecated", "format", "title"]);

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Resolves `#/…` references everywhere below `node` (the file has no recursive schemas). */
export function resolveRefs(doc: JsonObject, node: Json, seen: string[] = []): Json {
  if (Array.isArray(node)) return node.map((n) => resolveRefs(doc, n, seen));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === "string") {
    if (seen.includes(ref)) throw new Error(`OpenAPI: recursive $ref ${ref}`);
    let target: Json = doc;
    for (const part of ref.replace(/^#\//, "").split("/")) target = (target as JsonObject)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (target === undefined) throw new Error(`OpenAPI: unresolved $ref ${ref}`);
    return resolveRefs(doc, target, [...seen, ref]);
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = resolveRefs(doc, v, seen);
  return out;
}

/** Upstream's naive merge: b's keys into a; lists concatenated, objects merged, a's scalars kept. */
function naivelyMerge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, bv] of Object.entries(b)) {
    const av = out[k];
    if (k === "example" || av === undefined) out[k] = bv;
    else if (Array.isArray(av) && Array.isArray(bv)) out[k] = [...av, ...bv];
    else if (isObject(av) && isObject(bv)) out[k] = naivelyMerge(av, bv);
  }
  return out;
}

export function mergeAllOf(node: Json): Json {
  if (Array.isArray(node)) return node.map(mergeAllOf);
  if (!isObject(node)) return node;
  if (Array.isArray(node.allOf)) {
    const { allOf, ...rest } = node;
    let out = mergeAllOf(rest) as JsonObject;
    for (const sub of allOf) out = naivelyMerge(out, mergeAllOf(sub) as JsonObject);
    return out;
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = mergeAllOf(v);
  return out;
}

/** OpenAPI 3.0 dialect → JSON Schema (after refs and allOf are gone). */
export function toJsonSchema(node: Json, inProperties = false): Json {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    // Under `properties`, keys are field names (a field may be called "description").
    if (inProperties) {
      out[k] = toJsonSchema(v);
      continue;
    }
    if (DOCUMENTATION_KEYS.has(k) || k.startsWith("x-") || k === "nullable") continue;
    if (k === "oneOf") out.anyOf = toJsonSchema(v);
    else if (k === "properties") out[k] = toJsonSchema(v, true);
    else if (k === "enum") out[k] = v;
    // Concatenated by the naive merge; JSON Schema wants each name once.
    else if (k === "required" && Array.isArray(v)) out[k] = [...new Set(v as string[])];
    else out[k] = toJsonSchema(v);
  }
  if (inProperties || node.nullable !== true) return out;
  if (typeof out.type === "string") {
    out.type = [out.type, "null"];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: "null" }] };
}

/** The three steps, for one schema of the document. */
export function prepareSchema(doc: JsonObject, schema: Json): JsonObject {
  return toJsonSchema(mergeAllOf(resolveRefs(doc, schema))) as JsonObject;
}
