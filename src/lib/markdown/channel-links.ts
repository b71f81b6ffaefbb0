/** Channel and topic links: #**channel**, #**channel>topic**, #**channel>topic@123**. */
import type { StateInline } from "markdown-it";
import { renderState } from "./context.js";
import { escapeAttr, escapeText } from "./escape.js";
import { linkMayStartAt } from "./web-links.js";
import { pushHtml } from "./mentions.js";

const HASH_REPLACEMENTS: Record<string, string> = { "%": ".", "(": ".28", ")": ".29", ".": ".2E" };

/** Upstream's encoding of a narrow-URL component: percent-encode, then "%" → "." etc. */
export function encodeHashComponent(s: string): string {
  const encoded = encodeURIComponent(s).replace(/[!']/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  return encoded.replace(/[%().]/g, (c) => HASH_REPLACEMENTS[c]);
}

/** "<id>-<name with spaces as dashes, encoded>", e.g. 9, "Verona" → "9-Verona". */
export function encodeChannel(id: number, name: string): string {
  return `${id}-${encodeHashComponent(name.replace(/ /g, "-"))}`;
}

const CHANNEL_LINK_RE = /#\*\*([^*]+)\*\*/y;

export function channelLinkRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x23 || !linkMayStartAt(state.src, pos)) return false;
  CHANNEL_LINK_RE.lastIndex = pos;
  const m = CHANNEL_LINK_RE.exec(state.src);
  if (!m || pos + m[0].length > state.posMax) return false;
  const body = m[1];
  const rs = renderState(state.env);
  let html: string | null = null;
  const gt = body.indexOf(">");
  if (gt > 0 && gt < body.length - 1) {
    const channelName = body.slice(0, gt);
    let topic = body.slice(gt + 1);
    const channel = rs.lookups.channelByName(channelName);
    if (!channel) return false;
    const base = `/#narrow/channel/${encodeChannel(channel.id, channelName)}/topic/`;
    const msg = /^(.+)@(\d+)$/s.exec(topic);
    if (msg) {
      topic = msg[1];
      const href = `${base}${encodeHashComponent(topic)}/near/${msg[2]}`;
      html = `<a class="message-link" href="${escapeAttr(href)}">${escapeText(`#${channelName} > ${topic} @ 💬`)}</a>`;
    } else {
      const href = base + encodeHashComponent(topic);
      html =
        `<a class="stream-topic" data-stream-id="${channel.id}" href="${escapeAttr(href)}">` +
        `${escapeText(`#${channelName} > ${topic}`)}</a>`;
    }
  } else if (gt < 0) {
    const channel = rs.lookups.channelByName(body);
    if (!channel) return false;
    const href = `/#narrow/channel/${encodeChannel(channel.id, body)}`;
    html = `<a class="stream" data-stream-id="${channel.id}" href="${escapeAttr(href)}">${escapeText("#" + body)}</a>`;
  }
  if (html === null) return false;
  if (!silent) pushHtml(state, html);
  state.pos += m[0].length;
  return true;
}
