/**
 * Linkifier patterns: upstream accepts RE2-syntax regular expressions (the
 * Python flavour: (?P<name>…) named groups, inline flags…). This module
 * validates such a pattern with RE2's rules and error messages, and
 * translates it to an equivalent JavaScript RegExp (always in "u" mode).
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

export { BAD_REGEX_PREFIX, LinkifierPatternError } from "./python-regex-atoms.js";

export interface CompiledPythonRegex {
  regex: RegExp;
  /** Named groups in order of appearance (original names). */
  groupNames: string[];
  /** JavaScript group name used for each original group name. */
  jsGroupNames: Map<string, string>;
  /**
   * True for nested unbounded repetitions such as (a+)+, which RE2 runs in
   * linear time but a backtracking engine (JavaScript's) may not.
   */
  backtrackingRisk: boolean;
}

/**
 * Convert a Python/RE2-dialect regular expression to a JS RegExp.
 * Throws LinkifierPatternError with upstream's message for invalid patterns.
 */
export function compilePythonRegex(pattern: string, extraFlags = ""): CompiledPythonRegex {
  const cur: Cursor = { cps: Array.from(pattern), i: 0, flags: { i: false, m: false, s: false, U: false }, globalI: false };
  const cps = cur.cps;
  const n = cps.length;
  let out = "";
  const groupNames: string[] = [];
  const jsGroupNames = new Map<string, string>();
  const stack: Array<{ flags: Flags; start: number; unbounded: boolean }> = [];
  // Whether the last atom is a group containing an unbounded repetition.
  let atomUnbounded = false;
  // A nested unbounded repetition such as (a+)+ can backtrack exponentially.
  let backtrackingRisk = false;
  // Start of the most recent repeatable item in `out`, or -1 if none.
  let atomStart = -1;
  // Index in `cps` where the last repetition operator began, or -1.
  let lastRepeat = -1;

  const emitAtom = (text: string): void => {
    atomStart = out.length;
    out += text;
    lastRepeat = -1;
    atomUnbounded = false;
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
        if (!/^[\p{L}\p{N}_]+$/u.test(name) || jsGroupNames.has(name)) fail("invalid named capture group", capture);
        const jsName = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `g${groupNames.length}_${jsGroupNames.size}`;
        groupNames.push(name);
        jsGroupNames.set(name, jsName);
        stack.push({ flags: { ...cur.flags }, start: out.length, unbounded: false });
        out += `(?<${jsName}>`;
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
          stack.push({ flags: { ...cur.flags }, start: out.length, unbounded: false });
          cur.flags = next;
          out += "(?:";
          cur.i = j + 1;
          atomStart = -1;
          lastRepeat = -1;
          continue;
        }
        fail("invalid perl operator", cps.slice(cur.i, Math.min(j + 1, n)).join(""));
      }
      stack.push({ flags: { ...cur.flags }, start: out.length, unbounded: false });
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
      atomUnbounded = top.unbounded;
      if (top.unbounded && stack.length > 0) stack[stack.length - 1].unbounded = true;
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
      const unboundedOp = op === "*" || op === "+" || op.endsWith(",}");
      if (unboundedOp || /^\{\d+,\d+\}$/.test(op)) {
        if (atomUnbounded) backtrackingRisk = true;
        if (unboundedOp && stack.length > 0) stack[stack.length - 1].unbounded = true;
      }
      out += op + (lazy ? "?" : "");
      lastRepeat = cur.i;
      cur.i = j;
      continue;
    }
    if (c === "^") {
      out += cur.flags.m ? "(?<![^\\n])" : "^";
      atomStart = -1;
      lastRepeat = -1;
      cur.i++;
      continue;
    }
    if (c === "$") {
      out += cur.flags.m ? "(?![^\\n])" : "$";
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

  let regex: RegExp;
  try {
    regex = new RegExp(out, "u" + (cur.globalI ? "i" : "") + extraFlags);
  } catch (e) {
    fail("invalid perl operator", (e as Error).message);
  }
  return { regex, groupNames, jsGroupNames, backtrackingRisk };
}

