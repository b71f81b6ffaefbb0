/**
 * Bare URL / domain / e-mail auto-linking, with upstream's link regex:
 * a link starts after whitespace or one of  ' " ( , : <  and must be followed
 * by optional punctuation and then whitespace or the end of the text.
 */
import type { StateInline } from "markdown-it";
import { TLDS } from "./tlds.js";
import { rewriteLocalLink, sanitizeUrl } from "./urls.js";
import { renderState } from "./context.js";

const W = String.raw`[\p{L}\p{N}_]`;

function buildWebLinkRegex(): RegExp {
  const tlds = [...TLDS].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).join("|");
  // Up to six levels of balanced parentheses inside the path.
  const inner = String.raw`[^\s()"]*`;
  const group = String.raw`[^\s()"]*?(?:\(%s\)[^\s()"]*?)*`;
  let nested = group;
  for (let i = 0; i < 6; i++) nested = nested.replace("%s", group);
  nested = nested.replace("%s", inner);
  const domain = String.raw`(?:https?://[${W.slice(1, -1)}.:@-]+?|(?:(?:[${W.slice(1, -1)}-]+\.)+(?:${tlds})))`;
  const email = String.raw`(?:[${W.slice(1, -1)}.-]+@[${W.slice(1, -1)}.-]+\.${W}+)`;
  const bitcoin = String.raw`(?:bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34})`;
  const src = String.raw`(${domain}(?:/${nested})?|${email}|${bitcoin})(?=[!:;?),.'">]*(?:$|\s))`;
  return new RegExp(src, "uy");
}

let webLinkRegex: RegExp | undefined;

/** Characters after which a link (or mention, linkifier…) may start. */
export function isBoundaryBefore(code: number): boolean {
  switch (code) {
    case 0x20: case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d:
    case 0x27: case 0x22: case 0x28: case 0x2c: case 0x3a: case 0x3c:
      return true;
    default:
      return code >= 0x80 && (code === 0x85 || /[\p{Z}\s]/u.test(String.fromCharCode(code)));
  }
}

/** Whether a link may start at `pos` (upstream's look-behind). */
export function linkMayStartAt(src: string, pos: number): boolean {
  return pos === 0 || isBoundaryBefore(src.charCodeAt(pos - 1));
}

/**
 * Match a bare link at exactly `pos`; returns the matched URL text. Unless
 * `precheck` is false, first checks cheaply that the word holds ".", "@" or ":".
 */
export function matchWebLinkAt(src: string, pos: number, max: number, precheck = true): string | null {
  if (precheck) {
    let candidate = false;
    for (let i = pos; i < max; i++) {
      const c = src.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x09) break;
      if (c === 0x2e || c === 0x40 || c === 0x3a) {
        candidate = true;
        break;
      }
    }
    if (!candidate) return null;
  }
  webLinkRegex ??= buildWebLinkRegex();
  webLinkRegex.lastIndex = pos;
  const m = webLinkRegex.exec(src);
  if (!m || pos + m[1].length > max) return null;
  return m[1];
}

export function pushLink(state: StateInline, href: string, text: string): void {
  const open = state.push("link_open", "a", 1);
  open.attrs = [["href", href]];
  open.info = "auto";
  const t = state.push("text", "", 0);
  t.content = text;
  const close = state.push("link_close", "a", -1);
  close.info = "auto";
}

export function webLinkRule(state: StateInline, silent: boolean): boolean {
  if (state.linkLevel > 0) return false;
  const pos = state.pos;
  if (!linkMayStartAt(state.src, pos)) return false;
  // The inline stop mask only stops at words holding ".", "@" or ":".
  const url = matchWebLinkAt(state.src, pos, state.posMax, false);
  if (url === null) return false;
  const sanitized = sanitizeUrl(url);
  if (sanitized === null) return false;
  if (!silent) {
    pushLink(state, rewriteLocalLink(sanitized, renderState(state.env).lookups.realmUrl), url);
  }
  state.pos += url.length;
  return true;
}
