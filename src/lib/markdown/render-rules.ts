/** Renderer rules producing upstream's exact HTML. */
import type { MarkdownIt, MarkdownItOptions as Options, Renderer } from "markdown-it";
import type { Token } from "markdown-it";
import { escapeAttr, escapeText } from "./escape.js";
import { codeBlockHtml } from "./fences.js";

export function installRenderRules(md: MarkdownIt): void {
  const rules = md.renderer.rules;
  rules.text = (tokens, idx) => escapeText(tokens[idx].content);
  rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx].content)}</code>`;
  rules.code_block = (tokens, idx) => {
    const body = tokens[idx].content
      .split("\n")
      .map((l) => l.trimEnd())
      .join("\n")
      .replace(/^\n+|\n+$/g, "");
    return codeBlockHtml(body, "");
  };
  rules.softbreak = () => "<br>\n";
  rules.hardbreak = () => "<br>\n";
  rules.parley_html = (tokens, idx) => tokens[idx].content;
  rules.parley_block_html = (tokens, idx) => tokens[idx].content;
  rules.link_open = (tokens, idx) => {
    const t = tokens[idx];
    const title = t.attrGet("title");
    const href = t.attrGet("href");
    return `<a href="${escapeAttr(String(href ?? ""))}"${title ? ` title="${escapeAttr(String(title))}"` : ""}>`;
  };
  // A nested list directly follows its item's text: "<li>B<ol>" (no newline).
  const listOpen = (tokens: Token[], idx: number, options: Required<Options>, _env: unknown, self: Renderer) => {
    const html = self.renderToken(tokens, idx, options);
    return idx > 0 && tokens[idx - 1].hidden ? html.replace(/^\n/, "") : html;
  };
  rules.bullet_list_open = listOpen;
  rules.ordered_list_open = listOpen;
}
