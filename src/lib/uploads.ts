/**
 * Uploaded files as upstream names them: a path id
 * "{realm_id}/{two hex digits}/{24 random characters}/{sanitized name}" that is both the
 * file's name in the file store (src/storage; in the data folder, its place under
 * {dataDir}/uploads/) and, after /user_uploads/, its URL. Temporary
 * URLs carry a signed, expiring token so a file can be fetched without credentials.
 */
import crypto from "node:crypto";

export const UPLOAD_URL_PREFIX = "/user_uploads/";
/** Upstream's lifetime of a temporary file URL. */
export const TEMPORARY_URL_SECONDS = 60;
/** The largest request body POST /user_uploads reads: 100 MiB of file plus form overhead (PARLEY_MAX_FILE_UPLOAD_MIB above 100 has no effect). */
export const UPLOAD_ROUTE_MAX_BYTES = 101 * 1024 * 1024;

/** Upstream sanitize_name: letters, digits, spaces, dots and dashes; runs of spaces/dashes become one dash. */
export function sanitizeFileName(name: string): string {
  const cleaned = name
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}_\s.-]/gu, "")
    .trim()
    .replace(/[-\s]+/g, "-");
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "uploaded-file" : cleaned;
}

export function newPathId(realmId: number, fileName: string): string {
  const bucket = crypto.randomBytes(1)[0].toString(16);
  return [String(realmId), bucket, crypto.randomBytes(18).toString("base64url"), sanitizeFileName(fileName)].join("/");
}

/** The file's name in the file store's "attachments" area of its organization (src/storage): the path id without "{realm_id}/". */
export function attachmentStoredName(realmId: number, pathId: string): string | null {
  const prefix = `${realmId}/`;
  return pathId.startsWith(prefix) && pathId.length > prefix.length ? pathId.slice(prefix.length) : null;
}

const UPLOAD_LINK = /\/user_uploads\/(\d+\/[0-9a-f]{1,2}\/[A-Za-z0-9_-]+\/[^\s)"'<>?#]+)/g;

/** Path ids of this realm's uploads linked from rendered or raw message content. */
export function linkedPathIds(content: string, realmId: number): string[] {
  const found = new Set<string>();
  for (const m of content.matchAll(UPLOAD_LINK)) {
    if (m[1].startsWith(`${realmId}/`)) found.add(decodeURIComponentSafe(m[1]));
  }
  return [...found];
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A token naming the file and its expiry, signed with the server's key. */
export function temporaryToken(key: Buffer, pathId: string, nowSeconds: number): string {
  const payload = `${pathId}:${nowSeconds + TEMPORARY_URL_SECONDS}`;
  const mac = crypto.createHmac("sha256", key).update(payload).digest("base64url");
  return `${Buffer.from(payload).toString("base64url")}.${mac}`;
}

/** The path id of a valid, unexpired token; null otherwise. */
export function readTemporaryToken(key: Buffer, token: string, nowSeconds: number): string | null {
  const [encoded, mac] = token.split(".");
  if (!encoded || !mac) return null;
  const payload = Buffer.from(encoded, "base64url").toString();
  const expected = crypto.createHmac("sha256", key).update(payload).digest("base64url");
  if (expected.length !== mac.length || !crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(mac))) return null;
  const at = payload.lastIndexOf(":");
  if (at < 0 || Number(payload.slice(at + 1)) < nowSeconds) return null;
  return payload.slice(0, at);
}

/** A file of a multipart body, as the app's multipart hook keeps it (src/app.ts). */
export interface UploadedFile {
  filename: string;
  contentType: string | null;
  data: Buffer;
}
