/** Block-level adjustments: paragraphs keep trailing spaces; empty quotes are text. */
import type { StateBlock } from "markdown-it";

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** Whether one of a block's terminator rules starts a new block at `line` (markdown-it's check). */
export function terminatesAt(rules: readonly BlockRule[], state: StateBlock, line: number, endLine: number): boolean {
  return rules.some((rule) => rule(state, line, endLine, true));
}

/** markdown-it's paragraph rule, but only leading whitespace is stripped (as upstream does). */
export function paragraphRule(state: StateBlock, startLine: number, endLine: number): boolean {
  const terminatorRules = state.md.block.ruler.getRules("paragraph");
  const oldParentType = state.parentType;
  let nextLine = startLine + 1;
  state.parentType = "paragraph";
  for (; nextLine < endLine && !state.isEmpty(nextLine); nextLine++) {
    if (state.sCount[nextLine] - state.blkIndent > 3) continue;
    if (state.sCount[nextLine] < 0) continue;
    if (terminatesAt(terminatorRules, state, nextLine, endLine)) break;
  }
  const content = state.getLines(startLine, nextLine, state.blkIndent, false).replace(/^[ \t\n]+/, "");
  state.line = nextLine;
  const open = state.push("paragraph_open", "p", 1);
  open.map = [startLine, state.line];
  const inline = state.push("inline", "", 0);
  inline.content = content;
  inline.map = [startLine, state.line];
  inline.children = [];
  state.push("paragraph_close", "p", -1);
  state.parentType = oldParentType;
  return true;
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
}

/**
 * Upstream's quotes are whole text blocks (up to a blank line):
 *  - a block of only empty ">" lines is not a quote but text (so ">>>>>"
 *    renders four nested quotes around "&gt;");
 *  - lines without ">" after empty ">" lines still belong to the quote.
 */
export function wrapBlockquoteRule(original: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    if (lineText(state, startLine).charCodeAt(0) !== 0x3e) return false;
    let line = startLine;
    while (line < endLine && /^>\s*$/.test(lineText(state, line))) line++;
    if (line === endLine || state.isEmpty(line)) return false;
    if (line === startLine || lineText(state, line).charCodeAt(0) === 0x3e) {
      return original(state, startLine, endLine, silent);
    }
    let end = line;
    for (; end < endLine && !state.isEmpty(end); end++) {
      if (lineText(state, end).charCodeAt(0) === 0x3e) return original(state, startLine, endLine, silent);
    }
    if (silent) return true;
    const oldLineMax = state.lineMax;
    const oldParent = state.parentType;
    const open = state.push("blockquote_open", "blockquote", 1);
    open.map = [startLine, end];
    state.lineMax = end;
    state.parentType = "blockquote";
    state.md.block.tokenize(state, line, end);
    state.lineMax = oldLineMax;
    state.parentType = oldParent;
    state.push("blockquote_close", "blockquote", -1);
    state.line = end;
    return true;
  };
}
