/**
 * Message Markdown renderer: markdown-it configured with our own rules so the
 * output matches upstream's HTML. Raw HTML is never passed through. All data
 * (users, groups, channels, linkifiers) comes preloaded in MarkdownLookups;
 * rendering does no I/O.
 */
import MarkdownIt, { type Env, type MarkdownIt as MarkdownItInstance } from "markdown-it";
import type { StateCore } from "markdown-it";
import type { StateInline } from "markdown-it";
import type { StateBlock } from "markdown-it";
import type { Token } from "markdown-it";
import { renderState, type MarkdownEnv, type MarkdownLookups, type RenderState } from "./context.js";
import { paragraphRule, wrapBlockquoteRule } from "./blocks.js";
import { channelLinkRule } from "./channel-links.js";
import { emojiShortcodeRule, emoticonRule, unicodeEmojiRule } from "./emoji-rules.js";
import { fenceRule } from "./fences.js";
import {
  backtickRule, delRule, emRule, newlineRule, strongEmRule, strongRule, textRule,
} from "./inline-rules.js";
import { compileLinkifiers, linkifierRule, prepareLinkifierHits } from "./linkifiers.js";
import { listRule } from "./lists.js";
import { groupMentionRule, pushHtml, userMentionRule } from "./mentions.js";
import { installRenderRules } from "./render-rules.js";
import { texInlineRule } from "./tex.js";
import { timestampRule } from "./timestamps.js";
import { rewriteLocalLink, sanitizeUrl } from "./urls.js";
import { webLinkRule } from "./web-links.js";
import { collectReferences } from "./references.js";

export type { MarkdownLookups } from "./context.js";
export { topicLinks, topicLinksOf, type TopicLink } from "./linkifiers.js";
export { collectReferences } from "./references.js";

export interface RenderResult {
  html: string;
  /** Users mentioned (not silently). */
  mentionedUserIds: Set<number>;
  /** Groups mentioned (not silently). */
  mentionedGroupIds: Set<number>;
  /** @**all**, @**everyone**, @**channel**, @**stream** (not silent). */
  streamWildcardMentioned: boolean;
  /** @**topic** (not silent). */
  topicWildcardMentioned: boolean;
  /** Content starts with "/me " or is exactly "/me". */
  isMeMessage: boolean;
  hasLink: boolean;
  hasImage: boolean;
  /** Every name the content references (see collectReferences). */
  references: ReturnType<typeof collectReferences>;
}

const ENTITY_RE = /&(?:#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z0-9]+);/y;

/** HTML entities are kept as typed (upstream passes them through). */
function entityRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x26) return false;
  ENTITY_RE.lastIndex = state.pos;
  const m = ENTITY_RE.exec(state.src);
  if (!m || state.pos + m[0].length > state.posMax) return false;
  if (!silent) pushHtml(state, m[0]);
  state.pos += m[0].length;
  return true;
}

/** Parse inline content, telling the rules whether the block is inside a quote. */
function inlineWithQuoteState(state: StateCore): void {
  const rs = renderState(state.env);
  let depth = 0;
  for (const tok of state.tokens) {
    if (tok.type === "blockquote_open") depth++;
    else if (tok.type === "blockquote_close") depth--;
    else if (tok.type === "inline") {
      rs.inQuote = depth > 0;
      state.md.inline.parse(tok.content, state.md, state.env, tok.children ?? (tok.children = []));
    }
  }
  rs.inQuote = false;
}

/** Sanitize Markdown link targets; an empty link text shows the target. */
function fixLinks(state: StateCore): void {
  const realmUrl = renderState(state.env).lookups.realmUrl;
  for (const block of state.tokens) {
    const children = block.children;
    if (block.type !== "inline" || !children) continue;
    for (let i = 0; i < children.length; i++) {
      const open = children[i];
      if (open.type !== "link_open" || open.info === "auto") continue;
      const href = rewriteLocalLink(sanitizeUrl(String(open.attrGet("href") ?? "")) ?? "", realmUrl);
      open.attrSet("href", href);
      let j = i + 1;
      while (j < children.length && children[j].type !== "link_close") j++;
      const inner = children.slice(i + 1, j);
      if (inner.every((t) => t.type === "text" && t.content.trim() === "")) {
        const text = new state.Token("text", "", 0);
        text.content = href;
        children.splice(i + 1, j - i - 1, text);
      }
    }
  }
}

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

function createMarkdownIt(): MarkdownItInstance {
  const md = new MarkdownIt("default", { html: false, linkify: false, typographer: false, breaks: true });
  // Never decode/re-encode link targets: upstream keeps them as typed.
  md.normalizeLink = (url) => url;
  md.normalizeLinkText = (text) => text;
  md.validateLink = (url) => sanitizeUrl(url) !== null;

  const blockRules = (md.block.ruler as unknown as { __rules__: Array<{ name: string; fn: BlockRule }> }).__rules__;
  const blockquote = blockRules.find((r) => r.name === "blockquote")!.fn;
  const interrupting = { alt: ["paragraph", "reference", "blockquote", "list"] };
  md.block.ruler.at("blockquote", wrapBlockquoteRule(blockquote), interrupting);
  md.block.ruler.at("fence", fenceRule, interrupting);
  md.block.ruler.at("list", listRule, { alt: ["paragraph", "reference", "blockquote"] });
  md.block.ruler.at("paragraph", paragraphRule);
  md.block.ruler.disable(["lheading", "reference", "html_block"]);

  const inline = md.inline.ruler;
  inline.at("text", textRule);
  inline.at("newline", newlineRule);
  inline.at("backticks", backtickRule);
  inline.at("entity", entityRule);
  inline.before("link", "parley_strong_em", strongEmRule);
  inline.before("link", "parley_user_mention", userMentionRule);
  inline.before("link", "parley_tex", texInlineRule);
  inline.before("link", "parley_channel_link", channelLinkRule);
  inline.before("link", "parley_timestamp", timestampRule);
  inline.before("link", "parley_group_mention", groupMentionRule);
  inline.after("link", "parley_web_link", webLinkRule);
  inline.after("parley_web_link", "parley_linkifier", linkifierRule);
  inline.push("parley_strong", strongRule);
  inline.push("parley_em", emRule);
  inline.push("parley_del", delRule);
  inline.push("parley_emoji", emojiShortcodeRule);
  inline.push("parley_emoticon", emoticonRule);
  inline.push("parley_unicode_emoji", unicodeEmojiRule);
  md.inline.ruler.disable(["linkify", "escape", "strikethrough", "emphasis", "image", "autolink", "html_inline"]);
  md.inline.ruler2.disable(["strikethrough", "emphasis"]);

  md.core.ruler.at("inline", inlineWithQuoteState);
  md.core.ruler.after("inline", "parley_links", fixLinks);
  // Each linkifier's RE2 program is compiled once per render for all inline texts.
  md.core.ruler.before("inline", "parley_linkifier_scan", (state) => {
    prepareLinkifierHits(renderState(state.env), state.tokens.filter((t) => t.type === "inline").map((t) => t.content));
  });
  md.core.ruler.disable(["linkify", "replacements", "smartquotes"]);
  installRenderRules(md);
  return md;
}

let instance: MarkdownItInstance | undefined;

function markdownIt(): MarkdownItInstance {
  instance ??= createMarkdownIt();
  return instance;
}

export function renderMarkdown(content: string, lookups: MarkdownLookups): RenderResult {
  const state: RenderState = {
    lookups,
    linkifiers: compileLinkifiers(lookups.linkifiers),
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    streamWildcardMentioned: false,
    topicWildcardMentioned: false,
    inQuote: false,
  };
  const env: Env = { parley: state } satisfies MarkdownEnv;
  const md = markdownIt();
  const tokens: Token[] = md.parse(content, env);
  const html = md.renderer.render(tokens, md.options, env).replace(/\n+$/, "");
  return {
    html,
    mentionedUserIds: state.mentionedUserIds,
    mentionedGroupIds: state.mentionedGroupIds,
    streamWildcardMentioned: state.streamWildcardMentioned,
    topicWildcardMentioned: state.topicWildcardMentioned,
    isMeMessage: content.startsWith("/me ") || content === "/me",
    hasLink: html.includes("<a "),
    hasImage: html.includes("<img "),
    references: collectReferences(content),
  };
}
