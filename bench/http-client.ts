/** Single API calls from the bench process (setup steps, not measurements). */
export interface BenchUser {
  id: number;
  email: string;
  apiKey: string;
}

export function basicAuth(user: BenchUser): string {
  return `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString("base64")}`;
}

/** Calls the API and returns the JSON body; anything but 200 throws with the server's answer. */
export async function api<T = Record<string, unknown>>(port: number, user: BenchUser | null, method: string, path: string, body?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (user) headers.authorization = basicAuth(user);
  if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, { method, headers, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

export const form = (fields: Record<string, string | number>): string =>
  Object.entries(fields)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join("&");
