/** Multipart uploads as clients send them (files and text fields), and test images made with sharp. */
import type { LightMyRequestResponse } from "fastify";
import sharp from "sharp";
import type { User } from "../../src/db/schema.js";
import { basicAuth, injectChecked } from "./client.js";
import type { TestServer } from "./server.js";

export interface UploadFile {
  field: string;
  filename: string;
  content: Buffer;
  type?: string;
}

export function multipartBody(files: readonly UploadFile[], fields: Record<string, string> = {}): { contentType: string; body: Buffer } {
  const boundary = `----parley-test-${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.filename}"\r\nContent-Type: ${f.type ?? "application/octet-stream"}\r\n\r\n`));
    parts.push(f.content, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

/** POSTs files (and fields) to /api/v1{path} as `user`, through the contract check. */
export async function postFiles(s: TestServer, user: User, path: string, files: readonly UploadFile[], fields: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const { contentType, body } = multipartBody(files, fields);
  return injectChecked(s.app, {
    method: "POST",
    url: `/api/v1${path}`,
    headers: { host: s.api.hosts.get(user.realm_id)!, authorization: basicAuth(user), "content-type": contentType },
    payload: body,
  });
}

/** A still PNG of the given size. */
export function pngImage(width = 100, height = 80): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 20, g: 120, b: 200, alpha: 1 } } }).png().toBuffer();
}

/** An animated GIF of `frames` frames of different colours. */
export async function animatedGif(width = 120, height = 90, frames = 3): Promise<Buffer> {
  const pages = await Promise.all(
    Array.from({ length: frames }, (_, i) => sharp({ create: { width, height, channels: 4, background: { r: (i * 90) % 256, g: 40, b: 200 - i * 50, alpha: 1 } } }).png().toBuffer()),
  );
  return sharp(pages, { join: { animated: true } }).gif({ delay: pages.map(() => 100), loop: 0 }).toBuffer();
}
