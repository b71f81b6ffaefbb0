/**
 * Linkifiers (realm "filters"): a pattern plus an RFC 6570 URL template.
 * A linkifier matches only after the start of the text, whitespace or one of
 *  ' " ( , : <  and only when not followed by a letter or digit.
 */
import * as uriTemplate from "uri-template";
import type { StateInline } from "markdown-it";
import { BAD_REGEX_PREFIX, compilePythonRegex, LinkifierPatternError } from "./python-regex.js";
import { userRegexError, withUserRegex } from "../user-regex.js";
import { linkMayStartAt, matchWebLinkAt, pushLink } from "./web-links.js";
import { rewriteLocalLink, sanitizeUrl } from "./urls.js";
import { renderState, type RenderState } from "./context.js";

export { LinkifierPatternError } from "./python-regex.js";

export const INVALID_URL_TEMPLATE = "Invalid URL template.";

/** Python's repr() of a str, as used by upstream's %(name)r messages. */
function pyRepr(s: string): string {
  if (s.includes("'") && !s.includes('"')) return `"${s}"`;
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}
export function groupNotInPatternMessage(name: string): string {
  return `Group ${pyRepr(name)} in URL template is not present in linkifier pattern.`;
}
export function groupNotInTemplateMessage(name: string): string {
  return `Group ${pyRepr(name)} in linkifier pattern is not present in URL template.`;
}

type Template = ReturnType<typeof uriTemplate.parse>;

/** Variable names of a URL template, or null if it is not a valid template. */
export function urlTemplateVariables(template: string): string[] | null {
  let parsed: Template;
  try {
    parsed = uriTemplate.parse(template);
  } catch {
    return null;
  }
  const names: string[] = [];
  for (const part of parsed.ast.parts) {
    if (part.type === "expression") for (const v of part.variables) names.push(v.name);
  }
  return names;
}

export interface LinkifierValidationError {
  field: "pattern" | "url_template" | "__all__";
  message: string;
}

/**
 * Upstream's model validation for a linkifier, errors in upstream's order
 * (field validators first, then the cross-field checks).
 */
export function validateLinkifier(pattern: string, urlTemplate: string): LinkifierValidationError[] {
  const errors: LinkifierValidationError[] = [];
  // Field validation (blank values skip the field's validators).
  if (pattern === "") errors.push({ field: "pattern", message: "This field cannot be blank." });
  const vars = urlTemplate === "" ? [] : urlTemplateVariables(urlTemplate);
  if (urlTemplate === "") errors.push({ field: "url_template", message: "This field cannot be blank." });
  else if (vars === null) errors.push({ field: "url_template", message: INVALID_URL_TEMPLATE });
  // Model-level checks run even when a field failed.
  let groups: string[];
  try {
    const compiled = compilePythonRegex(pattern);
    groups = compiled.groupNames;
    // The pattern as rendering runs it must compile too (RE2's memory budget).
    const refused = userRegexError(renderSource(compiled.source), compiled.flags);
    if (refused !== null) throw new LinkifierPatternError(BAD_REGEX_PREFIX + refused);
  } catch (e) {
    if (!(e instanceof LinkifierPatternError)) throw e;
    errors.push({ field: "__all__", message: e.message });
    return errors;
  }
  if (vars === null) return errors;
  const groupSet = new Set(groups);
  const varSet = new Set(vars);
  const missingInPattern = [...varSet].filter((v) => !groupSet.has(v)).sort();
  if (missingInPattern.length > 0) {
    errors.push({ field: "__all__", message: groupNotInPatternMessage(missingInPattern[0]) });
    return errors;
  }
  const missingInTemplate = [...groupSet].filter((g) => !varSet.has(g)).sort();
  if (missingInTemplate.length > 0) {
    errors.push({ field: "__all__", message: groupNotInTemplateMessage(missingInTemplate[0]) });
  }
  return errors;
}

/**
 * The pattern as rendering runs it: group 1 is the linked text, and it must be followed
 * by the end of the text or a character that is neither a letter nor a digit (consumed,
 * as upstream's RE2 pattern does, since RE2 has no look-ahead).
 */
function renderSource(source: string): string {
  return `(${source})(?:$|[^0-9A-Za-z])`;
}

/**
 * Upstream's RE2 pattern ends in [^\pL\pN]; compiling that Unicode class costs the
 * WebAssembly build tens of milliseconds, too much per render. renderSource checks the
 * ASCII part inside RE2 (so the engine still picks an alternative followed by a
 * non-alphanumeric ASCII character) and this check refuses a match followed by a
 * non-ASCII letter or digit. Only a pattern with another alternative at the same position
 * could differ from upstream, and then it finds no link where upstream finds a shorter one.
 */
function followedByLetterOrDigit(text: string, end: number): boolean {
  return end < text.length && /[\p{L}\p{N}]/u.test(String.fromCodePoint(text.codePointAt(end)!));
}

export interface CompiledLinkifier {
  /** RE2 source of the pattern as rendering runs it (see renderSource). */
  source: string;
  flags: string;
  /** Capture-group number in `source` of each named group. */
  groupNumbers: Map<string, number>;
  template: Template;
}

/** Translations only (plain strings): the RE2 programs themselves are never kept. */
const cache = new Map<string, CompiledLinkifier | null>();

export function compileLinkifier(pattern: string, urlTemplate: string): CompiledLinkifier | null {
  const key = pattern + "\u0000" + urlTemplate;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let compiled: CompiledLinkifier | null;
  try {
    const c = compilePythonRegex(pattern);
    const source = renderSource(c.source);
    if (userRegexError(source, c.flags) !== null) throw new LinkifierPatternError("too large");
    const groupNumbers = new Map([...c.groupNumbers].map(([name, n]) => [name, n + 1]));
    compiled = { source, flags: c.flags, groupNumbers, template: uriTemplate.parse(urlTemplate) };
  } catch {
    compiled = null; // invalid linkifiers are skipped, as upstream does
  }
  if (cache.size > 1000) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

export function compileLinkifiers(list: Array<{ pattern: string; url_template: string }>): CompiledLinkifier[] {
  const out: CompiledLinkifier[] = [];
  for (const l of list) {
    const c = compileLinkifier(l.pattern, l.url_template);
    if (c) out.push(c);
  }
  return out;
}

interface LinkifierHit {
  /** The linked text. */
  text: string;
  url: string;
}

/**
 * Every position of each text where linkifier `l` matches (after a link boundary), for
 * each text: one RE2 program, compiled once and freed, scans them all. A search from
 * `from` finds the leftmost match; no match starts between `from` and it, so the next
 * search starts at the next boundary after it: one search per match, each linear.
 */
function scanTexts(l: CompiledLinkifier, texts: readonly string[]): Array<Map<number, LinkifierHit>> {
  return withUserRegex(l.source, l.flags, (re) =>
    texts.map((text) => {
      const hits = new Map<number, LinkifierHit>();
      let from = 0;
      while (from <= text.length) {
        const m = re.searchFrom(text, from);
        if (!m) break;
        const linked = m.groups[1] ?? "";
        const ok = linked.length > 0 && linkMayStartAt(text, m.index) && !followedByLetterOrDigit(text, m.index + linked.length);
        if (ok) hits.set(m.index, { text: linked, url: expand(l, m.groups) });
        from = m.index + 1;
        while (from < text.length && !linkMayStartAt(text, from)) from++;
      }
      return hits;
    }),
  );
}

function expand(l: CompiledLinkifier, groups: ReadonlyArray<string | undefined>): string {
  const values: Record<string, string> = {};
  for (const [name, n] of l.groupNumbers) {
    const v = groups[n];
    if (v !== undefined) values[name] = v;
  }
  return l.template.expand(values);
}

/** Per render: each inline text's hits, per linkifier in order (computed on first use). */
const hitsByRender = new WeakMap<RenderState, Map<string, Array<Map<number, LinkifierHit>>>>();

function hitsFor(rs: RenderState, src: string): Array<Map<number, LinkifierHit>> {
  const hits = hitsByRender.get(rs)?.get(src);
  if (hits) return hits;
  prepareLinkifierHits(rs, [src]);
  return hitsByRender.get(rs)!.get(src)!;
}

/** Scans the texts a render will parse inline (the linkifier rule then only looks hits up). */
export function prepareLinkifierHits(rs: RenderState, srcs: readonly string[]): void {
  let bySrc = hitsByRender.get(rs);
  if (!bySrc) hitsByRender.set(rs, (bySrc = new Map()));
  const todo = [...new Set(srcs)].filter((src) => !bySrc.has(src));
  if (todo.length === 0) return;
  const perLinkifier = rs.linkifiers.map((l) => scanTexts(l, todo));
  todo.forEach((src, i) => bySrc.set(src, perLinkifier.map((hitsPerText) => hitsPerText[i])));
}

/** Positions of `src` where some linkifier matches (the plain-text rule stops there). */
export function linkifierStarts(rs: RenderState, src: string): number[] {
  if (rs.linkifiers.length === 0) return [];
  return hitsFor(rs, src).flatMap((hits) => [...hits.keys()]);
}

export function linkifierRule(state: StateInline, silent: boolean): boolean {
  if (state.linkLevel > 0) return false;
  const rs = renderState(state.env);
  if (rs.linkifiers.length === 0 || !linkMayStartAt(state.src, state.pos)) return false;
  for (const hits of hitsFor(rs, state.src)) {
    const hit = hits.get(state.pos);
    if (!hit || state.pos + hit.text.length > state.posMax) continue;
    const href = sanitizeUrl(hit.url);
    if (href === null) continue;
    if (!silent) pushLink(state, rewriteLocalLink(href, rs.lookups.realmUrl), hit.text);
    state.pos += hit.text.length;
    return true;
  }
  return false;
}

interface TopicMatch {
  url: string;
  text: string;
  index: number;
  precedence: number | null;
}

export type TopicLink = { text: string; url: string };

/** Topic links (the `topic_links` message field) of one topic. */
export function topicLinks(topic: string, linkifiers: Array<{ pattern: string; url_template: string }>): TopicLink[] {
  return topicLinksOf([topic], linkifiers)[0];
}

/** Topic links of several topics, each linkifier's program compiled once for all of them. */
export function topicLinksOf(topics: readonly string[], linkifiers: Array<{ pattern: string; url_template: string }>): TopicLink[][] {
  const perLinkifier = compileLinkifiers(linkifiers).map((l) => scanTexts(l, topics));
  return topics.map((topic, t) => linksOfTopic(topic, perLinkifier.map((hitsPerTopic) => hitsPerTopic[t])));
}

function linksOfTopic(topic: string, hitsPerLinkifier: Array<Map<number, LinkifierHit>>): TopicLink[] {
  const matches: TopicMatch[] = [];
  hitsPerLinkifier.forEach((hits, precedence) => {
    // Non-overlapping, leftmost first, as a scan over the topic applies them.
    let next = 0;
    for (const [index, hit] of [...hits].sort((a, b) => a[0] - b[0])) {
      if (index < next) continue;
      matches.push({ url: hit.url, text: hit.text, index, precedence });
      next = index + hit.text.length;
    }
  });
  matches.sort((a, b) => a.precedence! - b.precedence! || a.index - b.index);

  // Raw URLs: each segment between separator characters may hold one.
  let pos = 0;
  while (pos < topic.length) {
    const rel = topic.slice(pos).search(/[ !;),'"]/);
    const end = rel < 0 ? topic.length : pos + rel;
    const segment = topic.slice(pos, end);
    for (let p = 0; p < segment.length; p++) {
      if (!linkMayStartAt(segment, p)) continue;
      const url = matchWebLinkAt(segment, p, segment.length);
      if (url === null) continue;
      let full = url;
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url)) full = "https://" + url.replace(/^\/\//, "");
      matches.push({ url: full, text: url, index: pos, precedence: null });
      break;
    }
    pos = end + 1;
  }

  const overlaps = (a: TopicMatch, b: TopicMatch): boolean =>
    (b.index <= a.index && a.index < b.index + b.text.length) ||
    (a.index <= b.index && b.index < a.index + a.text.length);
  const applied: TopicMatch[] = [];
  for (const m of matches) if (applied.every((old) => !overlaps(old, m))) applied.push(m);
  applied.sort((a, b) => a.index - b.index);
  return applied.map((m) => ({ text: m.text, url: m.url }));
}
