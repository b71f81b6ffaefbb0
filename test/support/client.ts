/**
 * The test client: form-encodes parameters (JSON-encoding arrays and objects, as
 * clients do), authenticates with HTTP Basic, and asserts on envelopes.
 */
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { User } from "../../src/db/schema.js";
import { EXTERNAL_HOST_FOR_CLIENT } from "./host.js";
import { checkResponse } from "./openapi/validate.js";

export type Params = Record<string, unknown>;
type Caller = Pick<User, "delivery_email" | "api_key" | "realm_id"> | null;

export interface CallOptions {
  host?: string;
  /** Send the parameters in the query string even for POST/PATCH/DELETE (as the JS client does for PATCH/DELETE). */
  inQuery?: boolean;
  headers?: Record<string, string>;
}

export function encodeParams(params: Params): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  }
  return form.toString();
}

export function basicAuth(user: Pick<User, "delivery_email" | "api_key">): string {
  return `Basic ${Buffer.from(`${user.delivery_email}:${user.api_key}`).toString("base64")}`;
}

/**
 * app.inject, then the contract check (test/support/openapi) on the answer when the URL
 * is under /api/v1 or /json. Tests that build raw requests use this instead of app.inject.
 */
export async function injectChecked(
  app: FastifyInstance,
  req: { method: string; url: string; headers?: Record<string, string>; payload?: string | Buffer },
): Promise<LightMyRequestResponse> {
  const res = await app.inject({ ...req, method: req.method as "GET" });
  // The web client's /json prefix serves the same route table.
  const prefix = ["/api/v1/", "/json/"].find((p) => req.url.startsWith(p));
  if (prefix) {
    checkResponse(req.method, req.url.slice(prefix.length - 1), res.statusCode, res.headers["content-type"] as string | undefined, res.body);
  }
  return res;
}

export class ApiClient {
  /** host header per realm id, filled by the test server. */
  readonly hosts = new Map<number, string>();

  constructor(private readonly app: FastifyInstance) {}

  async call(method: string, user: Caller, path: string, params: Params = {}, opts: CallOptions = {}): Promise<LightMyRequestResponse> {
    const encoded = encodeParams(params);
    const inQuery = method === "GET" || opts.inQuery;
    const url = `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ""}`;
    const headers: Record<string, string> = { host: opts.host ?? (user ? (this.hosts.get(user.realm_id) ?? EXTERNAL_HOST_FOR_CLIENT) : EXTERNAL_HOST_FOR_CLIENT), ...opts.headers };
    if (user) headers.authorization = basicAuth(user);
    if (!inQuery) headers["content-type"] = "application/x-www-form-urlencoded";
    return injectChecked(this.app, { method, url, headers, payload: inQuery ? undefined : encoded });
  }

  get(user: Caller, path: string, params?: Params, opts?: CallOptions) {
    return this.call("GET", user, path, params, opts);
  }
  post(user: Caller, path: string, params?: Params, opts?: CallOptions) {
    return this.call("POST", user, path, params, opts);
  }
  patch(user: Caller, path: string, params?: Params, opts?: CallOptions) {
    return this.call("PATCH", user, path, params, opts);
  }
  delete(user: Caller, path: string, params?: Params, opts?: CallOptions) {
    return this.call("DELETE", user, path, params, opts);
  }
}

/** Asserts a success envelope with no ignored parameters and returns the body. */
export function expectSuccess(res: LightMyRequestResponse): Record<string, any> {
  const body = res.json();
  expect({ status: res.statusCode, body }).toMatchObject({ status: 200, body: { result: "success", msg: "" } });
  expect(body.ignored_parameters_unsupported).toBeUndefined();
  return body;
}

/** Asserts an error envelope with the exact message (and code / status when given). */
export function expectError(
  res: LightMyRequestResponse,
  msg: string,
  opts: { code?: string; status?: number } = {},
): Record<string, any> {
  const body = res.json();
  expect(body.msg).toBe(msg);
  expect(body.result).toBe("error");
  expect(res.statusCode).toBe(opts.status ?? 400);
  expect(body.code).toBe(opts.code ?? "BAD_REQUEST");
  return body;
}
