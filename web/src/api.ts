/**
 * The app's only door to the server: the public API under /json, authenticated by the
 * session cookie, with the CSRF token (from the `csrftoken` cookie) in `X-CSRFToken` on
 * unsafe methods. Parameters go as a form body (query string for GET and DELETE); arrays
 * and objects as JSON text, as the API expects.
 */

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A request that never reached the server or got no JSON answer (retry later). */
export class NetworkError extends Error {}

export type Params = Record<string, string | number | boolean | object | undefined>;

export function cookie(name: string): string {
  for (const part of document.cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return "";
}

function encode(params: Params): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out.set(k, typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  return out;
}

/** Where the browser goes when the session has ended: the sign-in page, back here after. */
export function toLogin(): void {
  location.assign(`/login/?next=${encodeURIComponent(location.pathname + location.hash)}`);
}

export async function api<T = Record<string, any>>(method: string, path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
  const unsafe = method !== "GET" && method !== "HEAD";
  const body = method === "GET" || method === "DELETE" ? undefined : encode(params);
  const query = body ? "" : `?${encode(params).toString()}`;
  return send<T>(method, `/json${path}${query === "?" ? "" : query}`, body, unsafe, signal);
}

/** POST /json/user_uploads: the file as multipart; answers the stored file's URL. */
export async function uploadFile(file: File): Promise<{ url: string; filename: string }> {
  const form = new FormData();
  form.append("file", file, file.name);
  return send("POST", "/json/user_uploads", form, true);
}

async function send<T>(method: string, url: string, body: BodyInit | undefined, unsafe: boolean, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (unsafe) headers["X-CSRFToken"] = cookie("csrftoken");
  let res: Response;
  try {
    res = await fetch(url, { method, body, headers, credentials: "same-origin", signal });
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    throw new NetworkError(String(err));
  }
  let json: Record<string, any>;
  try {
    json = await res.json();
  } catch {
    throw new NetworkError(`HTTP ${res.status} without a JSON body`);
  }
  if (res.status === 401) {
    toLogin();
    throw new ApiError(String(json.msg ?? "Not signed in"), 401, String(json.code ?? "UNAUTHORIZED"), json);
  }
  if (json.result !== "success") throw new ApiError(String(json.msg ?? `HTTP ${res.status}`), res.status, String(json.code ?? "BAD_REQUEST"), json);
  return json as T;
}
