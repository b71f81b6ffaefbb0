/**
 * A browser's view of the server for session tests: keeps the cookies the server sets
 * (name → value; Max-Age=0 deletes), sends them back, and reads the CSRF token from the
 * login form or the csrftoken cookie as the web client does.
 */
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { encodeParams, injectChecked, type Params } from "./client.js";
import { EXTERNAL_HOST_FOR_CLIENT } from "./host.js";

export class TestBrowser {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly app: FastifyInstance,
    readonly host: string = EXTERNAL_HOST_FOR_CLIENT,
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(method: string, url: string, opts: { form?: Params; headers?: Record<string, string> } = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { host: this.host, ...opts.headers };
    if (this.cookies.size > 0 && headers.cookie === undefined) headers.cookie = this.cookieHeader();
    let payload: string | undefined;
    if (opts.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      payload = encodeParams(opts.form);
    }
    const res = await injectChecked(this.app, { method, url, headers, payload });
    for (const line of setCookies(res)) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      if (/Max-Age=0(;|$)/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1));
    }
    return res;
  }

  /** GET /login/, then POST the form with its hidden token. */
  async login(username: string, password: string, extra: Params = {}): Promise<LightMyRequestResponse> {
    const page = await this.request("GET", "/login/");
    return this.request("POST", "/accounts/login/", { form: { csrfmiddlewaretoken: formToken(page.body), username, password, ...extra } });
  }

  /** A JSON API call with the session cookie and the X-CSRFToken header the page would send. */
  api(method: string, path: string, params: Params = {}, opts: { csrf?: string | null; prefix?: string } = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = {};
    const csrf = opts.csrf === undefined ? this.cookies.get("csrftoken") : opts.csrf;
    if (csrf !== null && csrf !== undefined) headers["x-csrftoken"] = csrf;
    const url = `${opts.prefix ?? "/json"}${path}`;
    if (method === "GET") {
      const q = encodeParams(params);
      return this.request(method, q ? `${url}?${q}` : url, { headers });
    }
    return this.request(method, url, { form: params, headers });
  }
}

export function setCookies(res: LightMyRequestResponse): string[] {
  const raw = res.headers["set-cookie"];
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
}

export function formToken(html: string): string {
  const m = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(html);
  if (!m) throw new Error("no csrfmiddlewaretoken in the page");
  return m[1];
}
