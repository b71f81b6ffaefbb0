/**
 * Inline syntax with upstream's semantics: single-line **strong**, *em*,
 * ***strong em***, ~~del~~ (no underscore forms), code spans that keep their
 * spaces, and newlines that become <br> without eating spaces.
 */
import type { StateInline } from "markdown-it";
import { linkMayStartAt } from "./web-links.js";
import { renderState } from "./context.js";
import { linkifierStarts } from "./linkifiers.js";

const EMOJI_START = /[\p{Emoji}\p{Regional_Indicator}]/u;

function isTerminator(ch: number): boolean {
  switch (ch) {
    case 0x0a: case 0x21: case 0x23: case 0x24: case 0x25: case 0x26: case 0x2a: case 0x2b:
    case 0x2d: case 0x3a: case 0x3c: case 0x3d: case 0x3e: case 0x40: case 0x5b: case 0x5c:
    case 0x5d: case 0x5e: case 0x5f: case 0x60: case 0x7b: case 0x7d: case 0x7e:
      return true;
    default:
      return false;
  }
}

function isSpaceCode(ch: number): boolean {
  return ch === 0x20 || ch === 0x0a || ch === 0x09 || ch === 0x0d || ch === 0x0b || ch === 0x0c;
}

const masks = new WeakMap<StateInline, { src: string; mask: Uint8Array }>();

/**
 * Positions of the inline source where some rule may match (computed once
 * per inline source): syntax characters, emoji, and word starts that may
 * begin a bare link or a linkifier match. Plain text between them is
 * consumed in one step.
 */
function stopMask(state: StateInline): Uint8Array {
  const cached = masks.get(state);
  if (cached && cached.src === state.src) return cached.mask;
  const src = state.src;
  const n = src.length;
  const mask = new Uint8Array(n + 1);
  // linkChars[i]: the run of non-space characters from i holds ".", "@" or ":".
  const linkChars = new Uint8Array(n + 1);
  for (let i = n - 1; i >= 0; i--) {
    const c = src.charCodeAt(i);
    linkChars[i] = isSpaceCode(c) ? 0 : c === 0x2e || c === 0x40 || c === 0x3a ? 1 : linkChars[i + 1];
  }
  for (let i = 0; i < n; i++) {
    const c = src.charCodeAt(i);
    if (isTerminator(c)) mask[i] = 1;
    else if (linkChars[i] && linkMayStartAt(src, i)) mask[i] = 1;
    else if (c >= 0xa9) {
      if (EMOJI_START.test(String.fromCodePoint(src.codePointAt(i)!))) mask[i] = 1;
    } else if (c === 0x28 || c === 0x3b) {
      mask[i] = 1; // emoticons "(:" and ";)"
    } else {
      const next = src.charCodeAt(i + 1);
      if (next === 0xfe0f || next === 0x20e3) mask[i] = 1; // keycaps such as 1️⃣
    }
  }
  for (const pos of linkifierStarts(renderState(state.env), src)) mask[pos] = 1;
  masks.set(state, { src, mask });
  return mask;
}

/** Plain text up to the next position where some other rule might apply. */
export function textRule(state: StateInline, silent: boolean): boolean {
  const mask = stopMask(state);
  let pos = state.pos;
  const max = state.posMax;
  if (mask[pos]) return false;
  pos++;
  while (pos < max && !mask[pos]) pos++;
  if (!silent) state.pending += state.src.slice(state.pos, pos);
  state.pos = pos;
  return true;
}

export function newlineRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x0a) return false;
  if (!silent) state.push("softbreak", "br", 0);
  state.pos++;
  return true;
}

const CODE_RE = /(`+)(.+?)(?<!`)\1(?!`)/y;

export function backtickRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x60) return false;
  if (pos > 0 && state.src.charCodeAt(pos - 1) === 0x5c) return false;
  CODE_RE.lastIndex = pos;
  const m = CODE_RE.exec(state.src);
  if (!m || pos + m[0].length > state.posMax) return false;
  if (!silent) {
    const t = state.push("code_inline", "code", 0);
    t.markup = m[1];
    t.content = m[2];
  }
  state.pos += m[0].length;
  return true;
}

/** Wrap the source range [start, end) in open/close tags, parsing its inline content. */
function wrap(state: StateInline, tags: string[], start: number, end: number, total: number): void {
  for (const tag of tags) state.push(`parley_${tag}_open`, tag, 1);
  const oldMax = state.posMax;
  state.pos = start;
  state.posMax = end;
  state.md.inline.tokenize(state);
  state.posMax = oldMax;
  for (const tag of [...tags].reverse()) state.push(`parley_${tag}_close`, tag, -1);
  state.pos = total;
}

function delimited(
  re: RegExp,
  tags: string[],
  open: number,
  state: StateInline,
  silent: boolean,
): boolean {
  re.lastIndex = state.pos;
  const m = re.exec(state.src);
  if (!m) return false;
  const end = state.pos + m[0].length;
  if (end > state.posMax) return false;
  if (silent) {
    state.pos = end;
    return true;
  }
  wrap(state, tags, state.pos + open, state.pos + open + m[1].length, end);
  return true;
}

const STRONG_EM_RE = /\*\*\*(?!\s)([^*^\n]+)(?<!\s)\*\*\*/y;
const STRONG_RE = /\*\*([^\n]+?)\*\*/y;
const EM_RE = /\*(?!\s)([^*^\n]+)(?<!\s)\*/y;
const DEL_RE = /~~([^~\n]+?)~~(?!~)/y;

export function strongEmRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x2a) return false;
  return delimited(STRONG_EM_RE, ["strong", "em"], 3, state, silent);
}

export function strongRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x2a) return false;
  return delimited(STRONG_RE, ["strong"], 2, state, silent);
}

export function emRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x2a) return false;
  return delimited(EM_RE, ["em"], 1, state, silent);
}

export function delRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x7e) return false;
  if (state.pos > 0 && state.src.charCodeAt(state.pos - 1) === 0x7e) return false;
  return delimited(DEL_RE, ["del"], 2, state, silent);
}
