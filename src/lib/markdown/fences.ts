/**
 * Fenced blocks (``` or ~~~, three or more), with upstream's semantics:
 * code blocks with an optional language, ```quote / ```quoted blocks whose
 * body is Markdown, ```spoiler header blocks, and ```math blocks. A block is
 * closed only by a line holding exactly its opening fence; fences nest inside
 * quotes and spoilers; an unclosed block runs to the end of the message.
 */
import type { StateBlock } from "markdown-it";
import { codeLanguageName } from "./code-languages.js";
import { escapeAttr, escapeCode } from "./escape.js";
import { texBlockHtml } from "./tex.js";

const FENCE_RE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+,\-./#]*)[ ]*([^ ~`][^~`]*)?\}?)?$/;

interface Fence {
  fence: string;
  lang: string;
  header: string;
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
}

function parseFence(text: string): Fence | null {
  const m = FENCE_RE.exec(text);
  if (!m) return null;
  return { fence: m[1], lang: m[2] ?? "", header: (m[3] ?? "").trim() };
}

function kindOf(lang: string): "quote" | "spoiler" | "math" | "code" {
  const l = lang.toLowerCase();
  if (l === "quote" || l === "quoted") return "quote";
  if (l === "spoiler") return "spoiler";
  if (l === "math") return "math";
  return "code";
}

/** Line index of the fence closing the block opened at `start` (or endLine). */
function isFenceIndent(state: StateBlock, line: number): boolean {
  const rel = state.sCount[line] - state.blkIndent;
  return rel >= 0 && rel < 4;
}

function findClose(state: StateBlock, start: number, endLine: number, first: Fence): number {
  const stack: Array<{ fence: string; isCode: boolean }> = [
    { fence: first.fence, isCode: ["code", "math"].includes(kindOf(first.lang)) },
  ];
  for (let line = start + 1; line < endLine; line++) {
    const text = lineText(state, line);
    const top = stack[stack.length - 1];
    if (text.trimEnd() === top.fence && isFenceIndent(state, line)) {
      stack.pop();
      if (stack.length === 0) return line;
      continue;
    }
    if (!top.isCode && isFenceIndent(state, line)) {
      const f = parseFence(text);
      if (f) stack.push({ fence: f.fence, isCode: ["code", "math"].includes(kindOf(f.lang)) });
    }
  }
  return endLine;
}

function codeBody(state: StateBlock, from: number, to: number, indent: number): string {
  if (from >= to) return "";
  const lines = state.getLines(from, to, indent, false).split("\n");
  return lines
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/^\n+|\n+$/g, "");
}

export function codeBlockHtml(body: string, lang: string): string {
  const attr = lang ? ` data-code-language="${escapeAttr(codeLanguageName(lang))}"` : "";
  return `<div class="codehilite"${attr}><pre><span></span><code>${escapeCode(body)}\n</code></pre></div>\n`;
}

function pushBlockHtml(state: StateBlock, html: string): void {
  const t = state.push("parley_block_html", "", 0);
  t.content = html;
}

function tokenizeRange(state: StateBlock, from: number, to: number, parentType: string): void {
  const oldLineMax = state.lineMax;
  const oldParent = state.parentType;
  state.lineMax = to;
  state.parentType = parentType as typeof state.parentType;
  state.md.block.tokenize(state, from, to);
  state.lineMax = oldLineMax;
  state.parentType = oldParent;
}

export function fenceRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (!isFenceIndent(state, startLine)) return false;
  const text = lineText(state, startLine);
  const c = text.charCodeAt(0);
  if (c !== 0x60 && c !== 0x7e) return false;
  const fence = parseFence(text);
  if (!fence) return false;
  if (silent) return true;

  const close = findClose(state, startLine, endLine, fence);
  const bodyEnd = Math.min(close, endLine);
  const kind = kindOf(fence.lang);
  const startMap: [number, number] = [startLine, Math.min(close + 1, endLine)];

  if (kind === "code") {
    pushBlockHtml(state, codeBlockHtml(codeBody(state, startLine + 1, bodyEnd, state.sCount[startLine]), fence.lang));
  } else if (kind === "math") {
    pushBlockHtml(state, texBlockHtml(codeBody(state, startLine + 1, bodyEnd, state.sCount[startLine])));
  } else if (kind === "quote") {
    const open = state.push("blockquote_open", "blockquote", 1);
    open.map = startMap;
    tokenizeRange(state, startLine + 1, bodyEnd, "blockquote");
    state.push("blockquote_close", "blockquote", -1);
  } else {
    pushBlockHtml(state, '<div class="spoiler-block"><div class="spoiler-header">\n');
    if (fence.header) {
      state.push("paragraph_open", "p", 1);
      const inline = state.push("inline", "", 0);
      inline.content = fence.header;
      inline.map = [startLine, startLine + 1];
      inline.children = [];
      state.push("paragraph_close", "p", -1);
    }
    pushBlockHtml(state, '</div><div class="spoiler-content" aria-hidden="true">\n');
    tokenizeRange(state, startLine + 1, bodyEnd, "spoiler");
    pushBlockHtml(state, "</div></div>\n");
  }
  state.line = Math.min(close + 1, endLine);
  return true;
}
