/**
 * The contract check: every JSON answer a test receives, and every event it reads from a
 * queue, validated against upstream's OpenAPI file (see openapi/README.md) with ajv.
 * Each schema is prepared and compiled once per test process. Throws an Error naming
 * the operation, the HTTP status, and for each problem the JSON pointer, the schema
 * keyword and the schema path; it never turns a failing test into a passing one.
 */
import fs from "node:fs";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { openapiDocument, type Json, type JsonObject } from "./document.js";
import { toUpstreamNames, UNDOCUMENTED_ERRORS, upstreamNamesIn } from "./exceptions.js";
import { NEWER_EVENT_FORMS, stripNewerFields } from "./newer-fields.js";
import { findOperation, type OperationRef } from "./operations.js";
import { prepareSchema, resolveRefs } from "./schema.js";
import { recordEvent, recordOperation, recordUndocumented } from "./coverage.js";

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();
const MAX_PROBLEMS = 12;

export class ContractError extends Error {
  override name = "ContractError";
}

function compile(key: string, build: () => Json): ValidateFunction {
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(build() as object);
    compiled.set(key, fn);
  }
  return fn;
}

function responseSchema(doc: JsonObject, op: OperationRef, status: string): Json | undefined {
  let res = (op.operation.responses as JsonObject | undefined)?.[status] as JsonObject | undefined;
  // Shared responses (SimpleSuccess, …) are references to components.responses.
  if (typeof res?.$ref === "string") res = resolveRefs(doc, res) as JsonObject;
  const content = res?.content as JsonObject | undefined;
  return ((content?.["application/json"] as JsonObject | undefined)?.schema as Json | undefined) ?? undefined;
}

/**
 * Errors: upstream documents few of its error statuses per operation (and files its 401
 * "Invalid API key" under 400), so an error body must match one of the errors the
 * operation documents under any status, one of the common errors of
 * `/rest-error-handling`, or one of the file's named error shapes (components
 * `…Error`, e.g. NonExistingChannelIdError), or one of the errors upstream sends without
 * documenting them (exceptions.ts UNDOCUMENTED_ERRORS). That also covers the spec's 404
 * (exceptions.ts). Upstream's own check skips error bodies; this one only requires a
 * documented shape.
 */
function errorSchema(doc: JsonObject, op: OperationRef): Json {
  const common = findOperation(doc, "POST", "/rest-error-handling");
  const alternatives: Json[] = [];
  for (const ref of [op, common]) {
    if (!ref) continue;
    for (const status of Object.keys((ref.operation.responses as JsonObject) ?? {})) {
      if (!/^[45]/.test(status)) continue;
      const s = responseSchema(doc, ref, status);
      if (s !== undefined) alternatives.push(s);
    }
  }
  const schemas = ((doc.components as JsonObject).schemas as JsonObject) ?? {};
  for (const name of Object.keys(schemas)) if (/Error$/.test(name)) alternatives.push({ $ref: `#/components/schemas/${name}` });
  for (const e of UNDOCUMENTED_ERRORS) alternatives.push(e.schema);
  return { oneOf: alternatives };
}

function describe(errors: ErrorObject[] | null | undefined): string {
  const all = errors ?? [];
  // An anyOf summary says nothing its branches do not say better.
  const useful = all.filter((e) => e.keyword !== "anyOf" || all.length === 1);
  // The same problem seen by several overlapping alternatives is reported once.
  const byProblem = new Map<string, { first: ErrorObject; count: number }>();
  for (const e of useful) {
    const extra = e.keyword === "additionalProperties" ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : "";
    const allowed = e.keyword === "enum" ? ` ${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)}` : "";
    // Array elements with the same problem are reported once: /members/0 … /members/6.
    const key = `${(e.instancePath || "/").replace(/\/\d+(?=\/|$)/g, "/*")}: ${e.keyword}${extra} — ${e.message}${allowed}`;
    const seen = byProblem.get(key);
    if (seen) seen.count++;
    else byProblem.set(key, { first: e, count: 1 });
  }
  const lines = [...byProblem].map(([key, { first, count }]) => {
    const at = first.instancePath || "/";
    const problem = key.slice(key.indexOf(": ") + 2);
    return `  at ${at}: ${problem} (schema ${first.schemaPath}${count > 1 ? `; seen ${count} times, across elements or alternatives` : ""})`;
  });
  const shown = lines.slice(0, MAX_PROBLEMS);
  if (lines.length > shown.length) shown.push(`  … and ${lines.length - shown.length} more`);
  return shown.join("\n");
}

function fail(message: string): never {
  // PARLEY_CONTRACT_LOG=file collects every problem of a run in one place.
  if (process.env.PARLEY_CONTRACT_LOG) fs.appendFileSync(process.env.PARLEY_CONTRACT_LOG, `${message}\n`);
  throw new ContractError(message);
}

function check(validate: ValidateFunction, value: Json, what: string): void {
  if (!validate(value)) fail(`OpenAPI contract: ${what} does not match upstream's schema:\n${describe(validate.errors)}`);
}

function refuseUpstreamNames(value: Json, what: string): void {
  const found = upstreamNamesIn(value);
  if (found.length) fail(`OpenAPI contract: ${what} uses upstream's names instead of the neutral ones:\n${found.map((f) => `  at ${f}`).join("\n")}`);
}

/** The event schemas of `GET /events`, by "type" and "type/op". */
let eventSchemas: Map<string, Json[]> | undefined;

function eventAlternatives(doc: JsonObject): Map<string, Json[]> {
  if (eventSchemas) return eventSchemas;
  eventSchemas = new Map();
  const op = findOperation(doc, "GET", "/events");
  const schema = op && prepareSchema(doc, responseSchema(doc, op, "200") ?? null);
  const items = ((schema?.properties as JsonObject | undefined)?.events as JsonObject | undefined)?.items as JsonObject | undefined;
  for (const alt of (items?.anyOf as JsonObject[] | undefined) ?? []) {
    const props = (alt.properties as JsonObject | undefined) ?? {};
    const types = ((props.type as JsonObject | undefined)?.enum as string[] | undefined) ?? [];
    const ops = ((props.op as JsonObject | undefined)?.enum as string[] | undefined) ?? [null];
    for (const type of types) {
      for (const o of ops) {
        const key = o === null ? type : `${type}/${o}`;
        eventSchemas.set(key, [...(eventSchemas.get(key) ?? []), alt]);
      }
    }
  }
  return eventSchemas;
}

function eventKey(event: JsonObject): string {
  return typeof event.op === "string" ? `${String(event.type)}/${event.op}` : String(event.type);
}

/** Validates one event read from a queue against its type's (and op's) schema. */
export function checkEvent(event: Json): void {
  const doc = openapiDocument();
  if (!doc || typeof event !== "object" || event === null || Array.isArray(event)) return;
  const key = eventKey(event);
  refuseUpstreamNames(event, `event ${key}`);
  const newer = NEWER_EVENT_FORMS.find((f) => f.key === key && f.matches(event));
  if (newer) {
    recordEvent(`${key} (newer form)`);
    check(compile(`event ${key} newer form`, () => prepareSchema(doc, newer.schema)), toUpstreamNames(event), `event ${key} (id ${String(event.id)}, newer form)`);
    return;
  }
  const alternatives = eventAlternatives(doc).get(key) ?? (typeof event.op === "string" ? undefined : eventAlternatives(doc).get(String(event.type)));
  if (!alternatives) {
    recordUndocumented(`event ${key}`);
    return;
  }
  recordEvent(key);
  const validate = compile(`event ${key}`, () => (alternatives.length === 1 ? alternatives[0] : { anyOf: alternatives }));
  check(validate, stripNewerFields(toUpstreamNames(event), `event ${key}`), `event ${key} (id ${String(event.id)})`);
}

/** A concrete path with ids as {id} and overlong segments as {long}, for the records. */
function pathShape(path: string): string {
  return path.replace(/\/\d+(?=\/|$)/g, "/{id}").replace(/\/[^/]{41,}(?=\/|$)/g, "/{long}");
}

/**
 * Validates one answer of the API. `path` is under /api/v1 (query string allowed).
 * Non-JSON answers and undocumented operations are recorded, not failed.
 */
export function checkResponse(method: string, rawPath: string, status: number, contentType: string | undefined, bodyText: string): void {
  const doc = openapiDocument();
  if (!doc || !contentType?.startsWith("application/json") || bodyText === "") return;
  const path = rawPath.split("?")[0];
  // 405: Parley routes no such method here; the answer is not the operation's.
  if (status === 405) {
    recordUndocumented(`${method.toUpperCase()} ${pathShape(path)} (405, not routed)`);
    return;
  }
  const op = findOperation(doc, method, path);
  if (!op) {
    recordUndocumented(`${method.toUpperCase()} ${pathShape(path)}`);
    return;
  }
  recordOperation(op, status);
  const what = `${op.method} ${op.template} (${op.operationId}) HTTP ${status}`;
  const body = JSON.parse(bodyText) as Json;
  refuseUpstreamNames(body, what);
  // GET /events: the envelope here, each event against its own type's schema below.
  const events = op.template === "/events" && op.method === "GET" && status === 200 ? (body as JsonObject).events : undefined;
  const upstream = toUpstreamNames(Array.isArray(events) ? { ...(body as JsonObject), events: [] } : body);
  let validate: ValidateFunction;
  if (status >= 200 && status < 300) {
    const schema = responseSchema(doc, op, String(status));
    if (schema === undefined) {
      recordUndocumented(`${what} (status not documented)`);
      return;
    }
    validate = compile(`${op.method} ${op.template} ${status}`, () => prepareSchema(doc, schema));
  } else {
    validate = compile(`${op.method} ${op.template} error`, () => prepareSchema(doc, errorSchema(doc, op)));
  }
  check(validate, stripNewerFields(upstream, what), what);
  if (Array.isArray(events)) for (const e of events) checkEvent(e);
}
