/**
 * Strict decoding of `application/x-www-form-urlencoded` bodies and query strings: a body
 * that is not UTF-8, or a `%XX` sequence that does not decode to UTF-8 (`a%FF%FEb`), is
 * refused with a 400 instead of being stored literally.
 */
import { ApiError } from "../../errors.js";

export type FormFields = Record<string, string | string[]>;

const utf8 = new TextDecoder("utf-8", { fatal: true });

export const undecodableBody = () => new ApiError("Invalid UTF-8 or percent-encoding in the request body");
export const undecodableQuery = () => new ApiError("Invalid UTF-8 or percent-encoding in the query string");

/** Parses a form body; repeated names give arrays (the last value wins later, as for query strings). */
export function parseFormBody(body: Buffer): FormFields {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw undecodableBody();
  }
  const fields = decodePairs(text);
  if (fields === null) throw undecodableBody();
  return fields;
}

/** Throws unless the query string of `url` (after `?`) decodes cleanly. */
export function checkQueryString(url: string): void {
  const at = url.indexOf("?");
  if (at >= 0 && decodePairs(url.slice(at + 1).split("#")[0]) === null) throw undecodableQuery();
}

/** `a=1&b=x+y` → fields; null when a name or value does not decode. */
function decodePairs(text: string): FormFields | null {
  const out: FormFields = Object.create(null) as FormFields;
  for (const piece of text.split("&")) {
    if (piece === "") continue;
    const eq = piece.indexOf("=");
    const name = decode(eq < 0 ? piece : piece.slice(0, eq));
    const value = decode(eq < 0 ? "" : piece.slice(eq + 1));
    if (name === null || value === null) return null;
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[name] = [prev, value];
  }
  return out;
}

function decode(raw: string): string | null {
  // Most names and values hold neither `+` nor `%`: no copy, and no decoder call (about a
  // microsecond each), which changes nothing for text without `%` escapes.
  const s = raw.includes("+") ? raw.replaceAll("+", " ") : raw;
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}
