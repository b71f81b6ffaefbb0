/**
 * Building blocks of the RE2/Python regex translator (see python-regex.ts):
 * escapes, character classes, literals and case folding.
 */
import { userRegexError } from "../user-regex.js";

export class LinkifierPatternError extends Error {}

export const BAD_REGEX_PREFIX = "Bad regular expression: ";

export function fail(code: string, arg?: string): never {
  throw new LinkifierPatternError(BAD_REGEX_PREFIX + (arg === undefined ? code : `${code}: ${arg}`));
}

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z", alpha: "A-Za-z", ascii: "\\x00-\\x7f", blank: "\\t ", cntrl: "\\x00-\\x1f\\x7f",
  digit: "0-9", graph: "!-~", lower: "a-z", print: " -~", punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ", upper: "A-Z", word: "0-9A-Za-z_", xdigit: "0-9A-Fa-f",
};
const RE2_SPACE = "\\t\\n\\f\\r ";
const NOT_RE2_SPACE = "\\x00-\\x08\\x0b\\x0e-\\x1f\\x21-\\x{10ffff}";

export interface Flags { i: boolean; m: boolean; s: boolean; U: boolean }

export function lit(cp: number): string {
  const ch = String.fromCodePoint(cp);
  if (/[0-9A-Za-z_]/.test(ch)) return ch;
  return `\\x{${cp.toString(16)}}`;
}

export function caseVariants(cp: number): number[] {
  const ch = String.fromCodePoint(cp);
  const out = new Set([cp, ch.toLowerCase().codePointAt(0)!, ch.toUpperCase().codePointAt(0)!]);
  return [...out];
}

/** Names RE2 accepted or refused after \p (compiling a property class is slow). */
const knownProperties = new Map<string, boolean>();

function knownProperty(name: string): boolean {
  let known = knownProperties.get(name);
  if (known === undefined) {
    known = userRegexError(`\\p{${name}}`) === null;
    if (knownProperties.size < 1000) knownProperties.set(name, known);
  }
  return known;
}

function propertyEscape(name: string, negate: boolean): string {
  if (name === "Any") return negate ? "[^\\s\\S]" : "[\\s\\S]";
  // RE2 knows its own categories and scripts; its message is upstream's.
  if (!/^[A-Za-z_]+$/.test(name) || !knownProperty(name)) fail("invalid character class range", `\\p{${name}}`);
  return `${negate ? "\\P" : "\\p"}{${name}}`;
}

/** Parser position shared by the translator's functions. */
export interface Cursor {
  cps: string[];
  i: number;
  flags: Flags;
  globalI: boolean;
}

function hexCp(s: string, at: string): number {
  const v = parseInt(s, 16);
  if (!/^[0-9a-fA-F]+$/.test(s) || v > 0x10ffff) fail("invalid escape sequence", at);
  return v;
}

/** Parse the escape at cur.cps[cur.i] (a backslash) into RE2 source. */
export function parseEscape(cur: Cursor, inClass: boolean): string {
  const startIdx = cur.i;
  cur.i++;
  if (cur.i >= cur.cps.length) fail("trailing \\");
  const c = cur.cps[cur.i++];
  switch (c) {
    case "d": case "D": case "w": case "W": return "\\" + c;
    case "s": return inClass ? RE2_SPACE : `[${RE2_SPACE}]`;
    case "S": return inClass ? NOT_RE2_SPACE : `[^${RE2_SPACE}]`;
    case "n": case "t": case "r": case "f": case "v": return "\\" + c;
    case "a": return "\\x07";
    case "p": case "P": {
      let name: string;
      if (cur.cps[cur.i] === "{") {
        const end = cur.cps.indexOf("}", cur.i);
        if (end < 0) fail("invalid character class range", cur.cps.slice(startIdx).join(""));
        name = cur.cps.slice(cur.i + 1, end).join("");
        cur.i = end + 1;
      } else {
        if (cur.i >= cur.cps.length) fail("invalid character class range", cur.cps.slice(startIdx).join(""));
        name = cur.cps[cur.i++];
      }
      let negate = c === "P";
      if (name.startsWith("^")) {
        negate = !negate;
        name = name.slice(1);
      }
      return propertyEscape(name, negate);
    }
    case "x": {
      if (cur.cps[cur.i] === "{") {
        const end = cur.cps.indexOf("}", cur.i);
        if (end < 0) fail("invalid escape sequence", cur.cps.slice(startIdx).join(""));
        const v = hexCp(cur.cps.slice(cur.i + 1, end).join(""), cur.cps.slice(startIdx, end + 1).join(""));
        cur.i = end + 1;
        return lit(v);
      }
      const hex = cur.cps.slice(cur.i, cur.i + 2).join("");
      const v = hexCp(hex.length === 2 ? hex : "z", cur.cps.slice(startIdx, cur.i + 2).join(""));
      cur.i += 2;
      return lit(v);
    }
    case "C": return inClass ? fail("invalid escape sequence", "\\C") : "[\\s\\S]";
    default:
      break;
  }
  if (c >= "0" && c <= "7") {
    if (c !== "0" && !(cur.cps[cur.i] >= "0" && cur.cps[cur.i] <= "7")) fail("invalid escape sequence", "\\" + c);
    let digits = c;
    while (digits.length < 3 && cur.cps[cur.i] >= "0" && cur.cps[cur.i] <= "7") digits += cur.cps[cur.i++];
    return lit(parseInt(digits, 8));
  }
  if (!inClass) {
    if (c === "b" || c === "B") return "\\" + c;
    if (c === "A") return "^";
    if (c === "z") return "$";
  }
  const cp = c.codePointAt(0)!;
  if (cp < 0x80 && !/[0-9A-Za-z]/.test(c)) return lit(cp);
  return fail("invalid escape sequence", "\\" + c);
}

/** The code point of a single literal emitted by lit(), or null for a set. */
export function classItemCps(text: string): number | null {
  // A single literal code point emitted by lit(), or null for a set.
  const m = /^\\x\{([0-9a-f]+)\}$/.exec(text);
  if (m) return parseInt(m[1], 16);
  if (/^[0-9A-Za-z_]$/.test(text)) return text.codePointAt(0)!;
  return null;
}

/** Parse the character class at cur.cps[cur.i] ("[") into RE2 source. */
export function parseClass(cur: Cursor): string {
  const startIdx = cur.i;
  cur.i++;
  let negate = false;
  if (cur.cps[cur.i] === "^") {
    negate = true;
    cur.i++;
  }
  const items: string[] = [];
  let first = true;
  for (;;) {
    if (cur.i >= cur.cps.length) fail("missing ]", cur.cps.slice(startIdx).join(""));
    const c = cur.cps[cur.i];
    if (c === "]" && !first) {
      cur.i++;
      break;
    }
    first = false;
    if (c === "[" && cur.cps[cur.i + 1] === ":") {
      const end = cur.cps.indexOf("]", cur.i);
      const m = end > 0 ? /^\[:(\^?)([a-z]+):\]$/.exec(cur.cps.slice(cur.i, end + 1).join("")) : null;
      if (m) {
        const set = POSIX[m[2]];
        if (!set) fail("invalid character class range", cur.cps.slice(cur.i, end + 1).join(""));
        if (m[1]) negateInner(items, set);
        else items.push(set);
        cur.i = end + 1;
        continue;
      }
    }
    const loIdx = cur.i;
    let lo: string;
    if (c === "\\") lo = parseEscape(cur, true);
    else {
      lo = lit(c.codePointAt(0)!);
      cur.i++;
    }
    if (cur.cps[cur.i] === "-" && cur.cps[cur.i + 1] !== undefined && cur.cps[cur.i + 1] !== "]") {
      cur.i++;
      let hi: string;
      if (cur.cps[cur.i] === "\\") hi = parseEscape(cur, true);
      else {
        hi = lit(cur.cps[cur.i].codePointAt(0)!);
        cur.i++;
      }
      const a = classItemCps(lo);
      const b = classItemCps(hi);
      if (a === null || b === null || a > b) fail("invalid character class range", cur.cps.slice(loIdx, cur.i).join(""));
      items.push(`${lo}-${hi}`);
      if (cur.flags.i && !cur.globalI && a >= 0x41 && b <= 0x7a) addAsciiCaseRange(items, a, b);
      continue;
    }
    items.push(lo);
    const single = classItemCps(lo);
    if (cur.flags.i && !cur.globalI && single !== null) items.push(...caseVariants(single).map(lit));
  }
  return `[${negate ? "^" : ""}${items.join("")}]`;
}


export function literalText(c: string, flags: Flags, globalI: boolean): string {
  const cp = c.codePointAt(0)!;
  return flags.i && !globalI ? caseClass(cp) : lit(cp);
}

export function caseClass(cp: number): string {
  const v = caseVariants(cp);
  return v.length === 1 ? lit(cp) : `[${v.map(lit).join("")}]`;
}

function addAsciiCaseRange(items: string[], a: number, b: number): void {
  const lo = Math.max(a, 0x41);
  const hi = Math.min(b, 0x5a);
  if (lo <= hi) items.push(`${lit(lo + 32)}-${lit(hi + 32)}`);
  const lo2 = Math.max(a, 0x61);
  const hi2 = Math.min(b, 0x7a);
  if (lo2 <= hi2) items.push(`${lit(lo2 - 32)}-${lit(hi2 - 32)}`);
}

function negateInner(items: string[], set: string): void {
  // [[:^alpha:]] inside a class: add the complement of an ASCII set.
  const re = new RegExp(`[${set}]`, "u");
  let start = -1;
  for (let cp = 0; cp <= 0x80; cp++) {
    const inSet = cp < 0x80 && re.test(String.fromCharCode(cp));
    if (!inSet && start < 0) start = cp;
    if ((inSet || cp === 0x80) && start >= 0) {
      items.push(`${lit(start)}-${lit(cp === 0x80 ? 0x10ffff : cp - 1)}`);
      start = -1;
    }
  }
}
