/** User, wildcard and user-group mentions: @**Name**, @**Name|id**, @_**Name**, @*group*. */
import type { StateInline } from "markdown-it";
import { renderState } from "./context.js";
import { escapeAttr, escapeText } from "./escape.js";
import { linkMayStartAt } from "./web-links.js";

export const STREAM_WILDCARDS = new Set(["all", "everyone", "channel", "stream"]);
export const TOPIC_WILDCARD = "topic";

const USER_MENTION_RE = /@(_?)\*\*([^*]+)\*\*/y;
const GROUP_MENTION_RE = /@(_?)\*([^*]+)\*/y;
const ID_SYNTAX_RE = /^(.+)?\|(\d+)$/s;

export function pushHtml(state: StateInline, html: string): void {
  const t = state.push("parley_html", "", 0);
  t.content = html;
}

function span(cls: string, attrs: string, text: string): string {
  return `<span class="${cls}"${attrs}>${escapeText(text)}</span>`;
}

export function userMentionRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x40 || !linkMayStartAt(state.src, pos)) return false;
  USER_MENTION_RE.lastIndex = pos;
  const m = USER_MENTION_RE.exec(state.src);
  if (!m || pos + m[0].length > state.posMax) return false;
  const rs = renderState(state.env);
  // Mentions quoted from another message never notify anyone.
  const silentMention = m[1] === "_" || rs.inQuote;
  let name = m[2];
  let html: string;
  if (STREAM_WILDCARDS.has(name)) {
    if (!silentMention && !silent) rs.streamWildcardMentioned = true;
    const cls = "user-mention channel-wildcard-mention" + (silentMention ? " silent" : "");
    html = span(cls, ' data-user-id="*"', silentMention ? name : "@" + name);
  } else if (name === TOPIC_WILDCARD) {
    if (!silentMention && !silent) rs.topicWildcardMentioned = true;
    html = span("topic-mention" + (silentMention ? " silent" : ""), "", silentMention ? name : "@" + name);
  } else {
    let user: { id: number; full_name: string } | undefined;
    const idMatch = ID_SYNTAX_RE.exec(name);
    if (idMatch) {
      user = rs.lookups.userById(Number(idMatch[2]));
      if (idMatch[1] && user && user.full_name !== idMatch[1]) return false;
    } else {
      const found = rs.lookups.usersByName(name);
      user = found.length > 0 ? found[0] : undefined;
    }
    if (!user) return false;
    if (!silentMention && !silent) rs.mentionedUserIds.add(user.id);
    name = user.full_name;
    const cls = "user-mention" + (silentMention ? " silent" : "");
    html = span(cls, ` data-user-id="${user.id}"`, silentMention ? name : "@" + name);
  }
  if (!silent) pushHtml(state, html);
  state.pos += m[0].length;
  return true;
}

export function groupMentionRule(state: StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x40 || !linkMayStartAt(state.src, pos)) return false;
  GROUP_MENTION_RE.lastIndex = pos;
  const m = GROUP_MENTION_RE.exec(state.src);
  if (!m || pos + m[0].length > state.posMax) return false;
  const rs = renderState(state.env);
  const group = rs.lookups.groupByName(m[2]);
  if (!group) return false;
  const silentMention = m[1] === "_" || rs.inQuote;
  if (!silent) {
    if (!silentMention) rs.mentionedGroupIds.add(group.id);
    const cls = "user-group-mention" + (silentMention ? " silent" : "");
    const attrs = ` data-user-group-id="${escapeAttr(String(group.id))}"`;
    pushHtml(state, span(cls, attrs, silentMention ? group.name : "@" + group.name));
  }
  state.pos += m[0].length;
  return true;
}
