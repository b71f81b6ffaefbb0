/**
 * Runs rows of the authorization matrix: each row's request as every role, the answer
 * compared with the table's outcome, and the database unchanged by every refusal.
 */
import { createHash } from "node:crypto";
import { expect } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import { sql } from "kysely";
import { dialectOf } from "../../src/db/dialect.js";
import type { Params } from "./client.js";
import { basicAuth, injectChecked } from "./client.js";
import { EXTERNAL_HOST_FOR_CLIENT } from "./host.js";
import { multipartBody, type UploadFile } from "./multipart.js";
import { ROLES, type Caller, type RoleName, type World } from "./authz-world.js";

/** "ok" (HTTP 200 success), or the exact error (a pattern where the text names a fresh id). */
export type Outcome = "ok" | { msg: string | RegExp; code?: string; status?: number };
export type Expectation = Record<RoleName, Outcome>;

export interface Req {
  path: string;
  params?: Params;
  /** Sent as multipart/form-data (uploads). */
  files?: UploadFile[];
}

/** One endpoint acting on one kind of object, with the outcome for every role. */
export interface Row {
  /** `METHOD /path` exactly as in src/http/routes.ts. */
  route: string;
  /** Whose object, or which one ("own draft", "other's draft", "private channel the caller is not in"). */
  object: string;
  request(c: Caller, w: World): Promise<Req>;
  expect: Expectation;
  /** Text of others' objects that must not appear in an allowed role's answer (list endpoints). */
  hidden?(w: World, role: RoleName): string[];
  /** Undoes a success that would change what the next role finds. */
  undo?(c: Caller, w: World, req: Req): Promise<void>;
}

export function routeKey(r: { method: string; path: string }): string {
  return `${r.method} ${r.path}`;
}

async function send(w: World, method: string, c: Caller, req: Req): Promise<LightMyRequestResponse> {
  const host = c.user ? w.s.api.hosts.get(c.user.realm_id)! : EXTERNAL_HOST_FOR_CLIENT;
  if (!req.files) return w.s.api.call(method, c.user, req.path, req.params ?? {}, { host });
  const { contentType, body } = multipartBody(req.files, Object.fromEntries(Object.entries(req.params ?? {}).map(([k, v]) => [k, String(v)])));
  const headers: Record<string, string> = { host, "content-type": contentType };
  if (c.user) headers.authorization = basicAuth(c.user);
  return injectChecked(w.s.app, { method, url: `/api/v1${req.path}`, headers, payload: body });
}

/** What a response was, in the table's terms. */
export function outcomeOf(res: LightMyRequestResponse): Outcome {
  const body = JSON.parse(res.body);
  if (res.statusCode === 200 && body.result === "success") return "ok";
  return { msg: body.msg, code: body.code, status: res.statusCode };
}

function normalize(o: Outcome): Outcome {
  return o === "ok" ? o : { msg: o.msg, code: o.code ?? "BAD_REQUEST", status: o.status ?? 400 };
}

let tableNames: string[] | undefined;

/**
 * A checksum of every row of every table (the matrix's database is small). On PostgreSQL the
 * server hashes each table in one round trip; SQLite runs in process, so rows are hashed here.
 */
export async function fingerprint(w: World): Promise<string> {
  tableNames ??= (await w.s.db.introspection.getTables()).map((t) => t.name).filter((n) => !n.startsWith("kysely_") && !n.startsWith("sqlite_")).sort();
  const hash = createHash("sha256");
  if (dialectOf(w.s.db) === "postgres") {
    const perTable = tableNames.map((t) => sql`(SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM ${sql.table(t)} x)`);
    const row = await sql<Record<string, string>>`SELECT ${sql.join(perTable, sql`|| ':' ||`)} AS digest`.execute(w.s.db);
    return hash.update(row.rows[0]!.digest).digest("hex");
  }
  for (const t of tableNames) {
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(t)}`.execute(w.s.db);
    hash.update(`${t}:${rows.rows.map((r) => JSON.stringify(r)).sort().join("\n")}\n`);
  }
  return hash.digest("hex");
}

/** AUTHZ_PROBE=1 prints every answer that differs from the table instead of failing. */
const PROBE = process.env.AUTHZ_PROBE === "1";

/**
 * Builds every role's request first, then sends the refused ones and checks the database
 * did not change, then sends the allowed ones one at a time (undoing each).
 */
export async function runRow(w: World, row: Row): Promise<void> {
  const method = row.route.split(" ")[0];
  const built = new Map<RoleName, Req>();
  // Deactivated and anonymous callers send the member's own request: built once, for all three.
  for (const role of ROLES) {
    const shared = w.callers[role].actor === w.callers.member.user && role !== "member" ? built.get("member") : undefined;
    built.set(role, shared ?? (await row.request(w.callers[role], w)));
  }
  const refused = ROLES.filter((r) => row.expect[r] !== "ok");
  const allowed = ROLES.filter((r) => row.expect[r] === "ok");
  const check = (role: RoleName, res: LightMyRequestResponse) => {
    let actual = outcomeOf(res);
    const expected = normalize(row.expect[role]);
    if (actual !== "ok" && expected !== "ok" && expected.msg instanceof RegExp && expected.msg.test(actual.msg as string)) actual = { ...actual, msg: expected.msg };
    const where = `${row.route} [${row.object}] as ${role}: ${res.body.slice(0, 300)}`;
    if (PROBE) {
      if (JSON.stringify(normalize(actual)) !== JSON.stringify(expected) || String((normalize(actual) as any).msg) !== String((expected as any).msg)) console.log(`PROBE ${row.route} | ${row.object} | ${role} | ${JSON.stringify(actual)}`);
      return;
    }
    expect(normalize(actual), where).toEqual(expected);
    if (expected !== "ok") return;
    expect(JSON.parse(res.body).ignored_parameters_unsupported, where).toBeUndefined();
    for (const text of row.hidden?.(w, role) ?? []) expect(res.body.includes(text), `${where}: shows ${text}`).toBe(false);
  };
  const before = await fingerprint(w);
  for (const role of refused) check(role, await send(w, method, w.callers[role], built.get(role)!));
  const after = await fingerprint(w);
  if (!PROBE) expect(after, `${row.route} [${row.object}]: a refused request (${refused.join(", ")}) changed the database`).toBe(before);
  else if (after !== before) console.log(`PROBE ${row.route} | ${row.object} | DB CHANGED`);
  for (const role of allowed) {
    const req = built.get(role)!;
    check(role, await send(w, method, w.callers[role], req));
    await row.undo?.(w.callers[role], w, req);
  }
}
