/**
 * Linkifier patterns: upstream accepts RE2-syntax regular expressions (the
 * Python flavour: (?P<name>…) named groups, inline flags…). This module
 * validates such a pattern with RE2's rules and error messages, and
 * normalizes it to the RE2 syntax that the RE2 engine (lib/user-regex.ts) runs:
 * group names renamed where needed, scoped case-insensitivity expanded to classes,
 * every literal written as an escape.
 *
 * Supported: literals, escapes (\d \w \s \b \A \z \pL \p{Greek} \x{…} octal,
 * \Q…\E), classes (incl. [[:alpha:]]), groups ((?:…), (?P<n>…), (?<n>…)),
 * flags i m s U (global or scoped), repetitions (* + ? {n,m}, lazy forms).
 * Rejected like RE2: back-references, look-around, possessive or stacked
 * repetitions, \Z, bad escapes, unbalanced brackets.
 */
import {
  caseClass, classItemCps, type Cursor, fail, type Flags, literalText, parseClass, parseEscape,
} from "./python-regex-atoms.js";
import { userRegexError } from "../user-regex.js";

export { BAD_REGEX_PREFIX, LinkifierPatternError } from "./python-regex-atoms.js";

export interface CompiledPythonRegex {
  /** The pattern in the RE2 engine's syntax. */
  source: string;
  /** Engine flags: "i" for a leading (?i). */
  flags: string;
  /** Named groups in order of appearance (original names). */
  groupNames: string[];
  /** The capture-group number (1-based, counting unnamed groups too) of each named group. */
  groupNumbers: Map<string, number>;
}

/**
 * RE2's own limit is a memory budget, but in the WebAssembly build compiling a big program
 * takes seconds and can exhaust the 16 MB heap before that budget is checked (\pL{200}
 * does). So patterns are refused, with RE2's message for too large programs, above an
 * estimate of their compiled size: characters of the translated source, a Unicode
 * property class (hundreds of ranges) counting as 5,000, counted repetitions multiplying
 * what they repeat. Upstream's example patterns weigh under 200.
 */
const MAX_PATTERN_WEIGHT = 20_000;
const PROPERTY_CLASS_WEIGHT = 5_000;

function sourceWeight(source: string): number {
  const properties = source.match(/\\[pP]\{/g)?.length ?? 0;
  return source.length + properties * PROPERTY_CLASS_WEIGHT;
}

/**
 * Validate a Python/RE2-dialect regular expression and write it in the RE2 engine's
 * syntax. Throws LinkifierPatternError with upstream's message for invalid patterns;
 * RE2 itself has the last word (e.g. "pattern too large - compile failed").
 */
export function compilePythonRegex(pattern: string): CompiledPythonRegex {
  const cur: Cursor = { cps: Array.from(pattern), i: 0, flags: { i: false, m: false, s: false, U: false }, globalI: false };
  const cps = cur.cps;
  const n = cps.length;
  let out = "";
  const groupNames: string[] = [];
  const groupNumbers = new Map<string, number>();
  let captures = 0;
  const stack: Array<{ flags: Flags; start: number }> = [];
  // Start of the most recent repeatable item in `out`, or -1 if none.
  let atomStart = -1;
  // Index in `cps` where the last repetition operator began, or -1.
  let lastRepeat = -1;
  // Weight added by counted repetitions such as x{100}, with where in `out` each applies.
  const expansions: Array<{ at: number; weight: number }> = [];
  const weightFrom = (start: number): number =>
    sourceWeight(out.slice(start)) + expansions.filter((e) => e.at >= start).reduce((sum, e) => sum + e.weight, 0);

  const emitAtom = (text: string): void => {
    atomStart = out.length;
    out += text;
    lastRepeat = -1;
  };

  // Leading global flags such as (?i) become JS flags.
  const lead = /^\(\?([imsU]+)\)/.exec(pattern);
  if (lead && lead[1].includes("i")) cur.globalI = true;

  while (cur.i < n) {
    const c = cps[cur.i];
    if (c === "\\") {
      if (cps[cur.i + 1] === "Q") {
        cur.i += 2;
        let text = "";
        while (cur.i < n && !(cps[cur.i] === "\\" && cps[cur.i + 1] === "E")) text += literalText(cps[cur.i++], cur.flags, cur.globalI);
        if (cur.i < n) cur.i += 2;
        if (text) emitAtom(`(?:${text})`);
        continue;
      }
      const esc = parseEscape(cur, false);
      if (esc === "^" || esc === "$" || esc === "\\b" || esc === "\\B") {
        out += esc;
        atomStart = -1;
        lastRepeat = -1;
      } else {
        const cp = classItemCps(esc);
        emitAtom(cp !== null && cur.flags.i && !cur.globalI ? caseClass(cp) : esc);
      }
      continue;
    }
    if (c === "[") {
      emitAtom(parseClass(cur));
      continue;
    }
    if (c === "(") {
      const rest = cps.slice(cur.i, cur.i + 4).join("");
      if (rest.startsWith("(?P<") || (rest.startsWith("(?<") && rest[3] !== "=" && rest[3] !== "!")) {
        const begin = rest.startsWith("(?P<") ? cur.i + 4 : cur.i + 3;
        const end = cps.indexOf(">", begin);
        if (end < 0) fail("invalid named capture group", cps.slice(cur.i).join(""));
        const name = cps.slice(begin, end).join("");
        const capture = cps.slice(cur.i, end + 1).join("");
        if (!/^[\p{L}\p{N}_]+$/u.test(name) || groupNumbers.has(name)) fail("invalid named capture group", capture);
        groupNames.push(name);
        groupNumbers.set(name, ++captures);
        stack.push({ flags: { ...cur.flags }, start: out.length });
        // Matches are read by group number, so the engine needs no names.
        out += "(";
        cur.i = end + 1;
        atomStart = -1;
        lastRepeat = -1;
        continue;
      }
      if (cps[cur.i + 1] === "?") {
        let j = cur.i + 2;
        let neg = false;
        const next: Flags = { ...cur.flags };
        let sawFlag = false;
        for (; j < n; j++) {
          const f = cps[j];
          if (f === "-" && !neg) {
            neg = true;
            continue;
          }
          if (f === "i" || f === "m" || f === "s" || f === "U") {
            next[f] = !neg;
            sawFlag = true;
            continue;
          }
          break;
        }
        const term = cps[j];
        if ((term === ")" || term === ":") && (sawFlag || term === ":") && !(neg && !sawFlag)) {
          if (term === ")") {
            cur.flags = next;
            cur.i = j + 1;
            continue;
          }
          stack.push({ flags: { ...cur.flags }, start: out.length });
          cur.flags = next;
          out += "(?:";
          cur.i = j + 1;
          atomStart = -1;
          lastRepeat = -1;
          continue;
        }
        fail("invalid perl operator", cps.slice(cur.i, Math.min(j + 1, n)).join(""));
      }
      stack.push({ flags: { ...cur.flags }, start: out.length });
      captures++;
      out += "(";
      cur.i++;
      atomStart = -1;
      lastRepeat = -1;
      continue;
    }
    if (c === ")") {
      const top = stack.pop();
      if (!top) fail("unexpected )", pattern);
      out += ")";
      cur.flags = top.flags;
      atomStart = top.start;
      lastRepeat = -1;
      cur.i++;
      continue;
    }
    if (c === "|") {
      out += "|";
      atomStart = -1;
      lastRepeat = -1;
      cur.i++;
      continue;
    }
    if (c === "*" || c === "+" || c === "?" || c === "{") {
      let j = cur.i + 1;
      let op = c;
      if (c === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(cps.slice(cur.i, cur.i + 24).join(""));
        if (!m) {
          emitAtom("\\{");
          cur.i++;
          continue;
        }
        const lo = Number(m[1]);
        const hi = m[2] ? (m[3] ? Number(m[3]) : -1) : lo;
        if (lo > 1000 || hi > 1000 || (hi >= 0 && hi < lo)) fail("invalid repetition size", m[0]);
        op = m[0];
        j = cur.i + Array.from(m[0]).length;
      }
      let lazy = false;
      if (cps[j] === "?") {
        lazy = true;
        j++;
      }
      if (lastRepeat >= 0) fail("bad repetition operator", cps.slice(lastRepeat, j).join(""));
      if (atomStart < 0) fail("no argument for repetition operator", cps.slice(cur.i, j).join(""));
      if (cur.flags.U) lazy = !lazy;
      const counted = /^\{(\d+)(,(\d*))?\}$/.exec(op);
      const copies = counted ? (counted[3] ? Number(counted[3]) : Number(counted[1]) + (counted[2] ? 1 : 0)) : 1;
      if (copies > 1) expansions.push({ at: atomStart, weight: (copies - 1) * weightFrom(atomStart) });
      out += op + (lazy ? "?" : "");
      lastRepeat = cur.i;
      cur.i = j;
      continue;
    }
    if (c === "^") {
      out += cur.flags.m ? "(?m:^)" : "^";
      atomStart = -1;
      lastRepeat = -1;
      cur.i++;
      continue;
    }
    if (c === "$") {
      out += cur.flags.m ? "(?m:$)" : "$";
      atomStart = -1;
      lastRepeat = -1;
      cur.i++;
      continue;
    }
    if (c === ".") {
      emitAtom(cur.flags.s ? "[\\s\\S]" : "[^\\n]");
      cur.i++;
      continue;
    }
    emitAtom(literalText(c, cur.flags, cur.globalI));
    cur.i++;
  }
  if (stack.length > 0) fail("missing )", pattern);

  if (weightFrom(0) > MAX_PATTERN_WEIGHT) fail("pattern too large - compile failed");
  const flags = cur.globalI ? "i" : "";
  const refused = userRegexError(out, flags);
  if (refused !== null) fail(refused);
  return { source: out, flags, groupNames, groupNumbers };
}

