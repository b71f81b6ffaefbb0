/**
 * TeX math: $$inline$$ and ```math blocks. There is no TeX renderer here, so
 * math renders the way upstream renders TeX it cannot typeset: the source in
 * a "tex-error" span.
 */
import type { StateInline } from "markdown-it";
import { escapeHtmlQuote, escapeText } from "./escape.js";
import { pushHtml } from "./mentions.js";

const TEX_RE = /\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)(?![\p{L}\p{N}_])/uy;
const WORD = /[\p{L}\p{N}_$]/u;

export function texInlineRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x24) return false;
  if (pos > 0 && WORD.test(state.src[pos - 1])) return false;
  TEX_RE.lastIndex = pos;
  const m = TEX_RE.exec(state.src);
  if (!m || pos + m[0].length > state.posMax) return false;
  if (!silent) pushHtml(state, `<span class="tex-error">${escapeText("$$" + m[1] + "$$")}</span>`);
  state.pos += m[0].length;
  return true;
}

export function texBlockHtml(body: string): string {
  const parts = body.split("\n\n").map((p) => `<span class="tex-error">${escapeHtmlQuote(p)}</span>`);
  return `<p>${parts.join("\n\n")}</p>\n`;
}
