/**
 * Lists with upstream's rules, adapted from markdown-it's list rule (MIT):
 *  - nested lists need only 2 spaces of indentation (also under "1. " items);
 *  - any ordered list (not only one starting at 1) may follow a paragraph;
 *  - "*", "-" and "+" items continue the same bullet list.
 */
import type { StateBlock } from "markdown-it";
import { terminatesAt } from "./blocks.js";

function isSpace(code: number): boolean {
  return code === 0x09 || code === 0x20;
}

function skipBulletListMarker(state: StateBlock, line: number): number {
  const max = state.eMarks[line];
  let pos = state.bMarks[line] + state.tShift[line];
  const marker = state.src.charCodeAt(pos++);
  if (marker !== 0x2a && marker !== 0x2d && marker !== 0x2b) return -1;
  if (pos < max && !isSpace(state.src.charCodeAt(pos))) return -1;
  return pos;
}

function skipOrderedListMarker(state: StateBlock, line: number): number {
  const start = state.bMarks[line] + state.tShift[line];
  const max = state.eMarks[line];
  let pos = start;
  if (pos + 1 >= max) return -1;
  let ch = state.src.charCodeAt(pos++);
  if (ch < 0x30 || ch > 0x39) return -1;
  for (;;) {
    if (pos >= max) return -1;
    ch = state.src.charCodeAt(pos++);
    if (ch >= 0x30 && ch <= 0x39) {
      if (pos - start >= 10) return -1;
      continue;
    }
    if (ch === 0x29 || ch === 0x2e) break;
    return -1;
  }
  if (pos < max && !isSpace(state.src.charCodeAt(pos))) return -1;
  return pos;
}

function markTightParagraphs(state: StateBlock, idx: number): void {
  const level = state.level + 2;
  for (let i = idx + 2, l = state.tokens.length - 2; i < l; i++) {
    if (state.tokens[i].level === level && state.tokens[i].type === "paragraph_open") {
      state.tokens[i + 2].hidden = true;
      state.tokens[i].hidden = true;
      i += 2;
    }
  }
}

export function listRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  let nextLine = startLine;
  let tight = true;
  if (state.sCount[nextLine] - state.blkIndent >= 4) return false;
  if (state.listIndent >= 0 && state.sCount[nextLine] - state.listIndent >= 4 && state.sCount[nextLine] < state.blkIndent) {
    return false;
  }
  let isTerminatingParagraph = false;
  if (silent && state.parentType === "paragraph" && state.sCount[nextLine] >= state.blkIndent) {
    isTerminatingParagraph = true;
  }
  let isOrdered: boolean;
  let markerValue = 0;
  let start = 0;
  let posAfterMarker: number;
  if ((posAfterMarker = skipOrderedListMarker(state, nextLine)) >= 0) {
    isOrdered = true;
    start = state.bMarks[nextLine] + state.tShift[nextLine];
    markerValue = Number(state.src.slice(start, posAfterMarker - 1));
  } else if ((posAfterMarker = skipBulletListMarker(state, nextLine)) >= 0) {
    isOrdered = false;
  } else {
    return false;
  }
  if (isTerminatingParagraph && state.skipSpaces(posAfterMarker) >= state.eMarks[nextLine]) return false;
  if (silent) return true;

  const markerCharCode = state.src.charCodeAt(posAfterMarker - 1);
  const listTokIdx = state.tokens.length;
  let token;
  if (isOrdered) {
    token = state.push("ordered_list_open", "ol", 1);
    if (markerValue !== 1) token.attrs = [["start", String(markerValue)]];
  } else {
    token = state.push("bullet_list_open", "ul", 1);
  }
  const listLines: [number, number] = [nextLine, 0];
  token.map = listLines;
  token.markup = String.fromCharCode(markerCharCode);
  let prevEmptyEnd = false;
  const terminatorRules = state.md.block.ruler.getRules("list");
  const oldParentType = state.parentType;
  state.parentType = "list";

  while (nextLine < endLine) {
    let pos = posAfterMarker;
    const max = state.eMarks[nextLine];
    const markerIndent = state.sCount[nextLine];
    const initial = state.sCount[nextLine] + posAfterMarker - (state.bMarks[nextLine] + state.tShift[nextLine]);
    let offset = initial;
    while (pos < max) {
      const ch = state.src.charCodeAt(pos);
      if (ch === 0x09) offset += 4 - ((offset + state.bsCount[nextLine]) % 4);
      else if (ch === 0x20) offset++;
      else break;
      pos++;
    }
    const contentStart = pos;
    let indentAfterMarker = contentStart >= max ? 1 : offset - initial;
    if (indentAfterMarker > 4) indentAfterMarker = 1;
    // Upstream nests with 2-space indentation whatever the marker width.
    const indent = Math.min(initial + indentAfterMarker, markerIndent + 2);

    token = state.push("list_item_open", "li", 1);
    token.markup = String.fromCharCode(markerCharCode);
    const itemLines: [number, number] = [nextLine, 0];
    token.map = itemLines;
    if (isOrdered) token.info = state.src.slice(start, posAfterMarker - 1);

    const oldTight = state.tight;
    const oldTShift = state.tShift[nextLine];
    const oldSCount = state.sCount[nextLine];
    const oldListIndent = state.listIndent;
    state.listIndent = state.blkIndent;
    state.blkIndent = indent;
    state.tight = true;
    state.tShift[nextLine] = contentStart - state.bMarks[nextLine];
    state.sCount[nextLine] = offset;
    if (contentStart >= max && state.isEmpty(nextLine + 1)) {
      state.line = Math.min(state.line + 2, endLine);
    } else {
      state.md.block.tokenize(state, nextLine, endLine);
    }
    if (!state.tight || prevEmptyEnd) tight = false;
    prevEmptyEnd = state.line - nextLine > 1 && state.isEmpty(state.line - 1);
    state.blkIndent = state.listIndent;
    state.listIndent = oldListIndent;
    state.tShift[nextLine] = oldTShift;
    state.sCount[nextLine] = oldSCount;
    state.tight = oldTight;

    token = state.push("list_item_close", "li", -1);
    token.markup = String.fromCharCode(markerCharCode);
    nextLine = state.line;
    itemLines[1] = nextLine;
    if (nextLine >= endLine) break;
    if (state.sCount[nextLine] < state.blkIndent) break;
    if (state.sCount[nextLine] - state.blkIndent >= 4) break;
    if (terminatesAt(terminatorRules, state, nextLine, endLine)) break;
    if (isOrdered) {
      posAfterMarker = skipOrderedListMarker(state, nextLine);
      if (posAfterMarker < 0) break;
      start = state.bMarks[nextLine] + state.tShift[nextLine];
    } else {
      posAfterMarker = skipBulletListMarker(state, nextLine);
      if (posAfterMarker < 0) break;
    }
  }

  token = state.push(isOrdered ? "ordered_list_close" : "bullet_list_close", isOrdered ? "ol" : "ul", -1);
  token.markup = String.fromCharCode(markerCharCode);
  listLines[1] = nextLine;
  state.line = nextLine;
  state.parentType = oldParentType;
  if (tight) markTightParagraphs(state, listTokIdx);
  return true;
}
