/** Message content rules shared by send, edit, scheduled messages and drafts (upstream normalize_body). */
import { ApiError } from "../errors.js";

export const TRUNCATION_SUFFIX = "\n[message truncated]";

/** Strips trailing whitespace and leading newlines, rejects empty and NUL-bearing content, truncates. */
export function normalizeContent(raw: string, maxLength: number): string {
  const body = raw.trimEnd().replace(/^\n+/, "");
  if (body.length === 0) throw new ApiError("Message must not be empty");
  if (body.includes("\x00")) throw new ApiError("Message must not contain null bytes");
  return truncateContent(body, maxLength);
}

/** Cuts content longer than maxLength (code points) to fit, ending with the truncation notice. */
export function truncateContent(body: string, maxLength: number): string {
  const chars = [...body];
  if (chars.length <= maxLength) return body;
  return chars.slice(0, Math.max(0, maxLength - TRUNCATION_SUFFIX.length)).join("") + TRUNCATION_SUFFIX;
}
