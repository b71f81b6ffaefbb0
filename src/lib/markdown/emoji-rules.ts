/** Emoji: :name: shortcodes and literal Unicode emoji. */
import type { StateInline } from "markdown-it";
import { emojiByName, emojiCodeFromText, emojiNameByCode } from "../emoji.js";
import { escapeAttr, escapeText } from "./escape.js";
import { pushHtml } from "./mentions.js";
import { renderState } from "./context.js";

export function emojiHtml(code: string, name: string): string {
  const title = escapeAttr(name.replace(/_/g, " "));
  return (
    `<span aria-label="${title}" class="emoji emoji-${escapeAttr(code)}" role="img" title="${title}">` +
    `${escapeText(":" + name + ":")}</span>`
  );
}

const SHORTCODE_RE = /:([\p{L}\p{N}_\-+]+):/uy;

export function emojiShortcodeRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a) return false;
  SHORTCODE_RE.lastIndex = state.pos;
  const m = SHORTCODE_RE.exec(state.src);
  if (!m || state.pos + m[0].length > state.posMax) return false;
  if (!silent) {
    const emoji = emojiByName(m[1]);
    // An unknown name is consumed as plain text, as upstream does.
    if (emoji) pushHtml(state, emojiHtml(emoji.code, m[1]));
    else state.pending += m[0];
  }
  state.pos += m[0].length;
  return true;
}

// Unicode TR51 emoji sequence, as upstream matches it.
const E = String.raw`\p{Emoji}(?:\p{Emoji_Modifier}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?`;
const RI = String.raw`\p{Regional_Indicator}\p{Regional_Indicator}`;
const UNICODE_EMOJI_RE = new RegExp(String.raw`(?:${RI}|${E}(?:\u200D(?:${RI}|${E}))*)`, "uy");
const TEXT_PRESENTATION_RE = /^\P{Emoji_Presentation}\u20E3?$/u;

export function unicodeEmojiRule(state: StateInline, silent: boolean): boolean {
  UNICODE_EMOJI_RE.lastIndex = state.pos;
  const m = UNICODE_EMOJI_RE.exec(state.src);
  if (!m || state.pos + m[0].length > state.posMax) return false;
  const text = m[0];
  // Characters that are text by default (digits, arrows, ©…) stay text.
  if (TEXT_PRESENTATION_RE.test(text)) return false;
  if (!silent) {
    const code = emojiCodeFromText(text);
    const name = emojiNameByCode(code);
    if (name) pushHtml(state, emojiHtml(code, name));
    else state.pending += text;
  }
  state.pos += text.length;
  return true;
}

/** Upstream's emoticon translations (used when the sender enabled them). */
export const EMOTICON_CONVERSIONS: Readonly<Record<string, string>> = {
  ":)": "smile", "(:": "smile", ":(": "frown", "<3": "heart", ":|": "neutral", ":/": "confused",
  ";)": "wink", ":D": "grinning", ":o": "open_mouth", ":O": "open_mouth", ":p": "stuck_out_tongue",
  ":P": "stuck_out_tongue",
};
const TERMINAL = new Set([...",.;?!()[] \"'\n\t"]);

export function emoticonRule(state: StateInline, silent: boolean): boolean {
  if (!renderState(state.env).lookups.translateEmoticons) return false;
  const pos = state.pos;
  const pair = state.src.slice(pos, pos + 2);
  const name = EMOTICON_CONVERSIONS[pair];
  if (!name || pos + 2 > state.posMax) return false;
  if (pos > 0 && !TERMINAL.has(state.src[pos - 1])) return false;
  if (pos + 2 < state.src.length && !TERMINAL.has(state.src[pos + 2])) return false;
  const emoji = emojiByName(name);
  if (!emoji) return false;
  if (!silent) pushHtml(state, emojiHtml(emoji.code, name));
  state.pos += 2;
  return true;
}
