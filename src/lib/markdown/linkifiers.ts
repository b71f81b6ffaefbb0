/**
 * Linkifiers (realm "filters"): a pattern plus an RFC 6570 URL template.
 * A linkifier matches only after the start of the text, whitespace or one of
 *  ' " ( , : <  and only when not followed by a letter or digit.
 */
import * as uriTemplate from "uri-template";
import type { StateInline } from "markdown-it";
import { compilePythonRegex, LinkifierPatternError } from "./python-regex.js";
import { linkMayStartAt, matchWebLinkAt, pushLink } from "./web-links.js";
import { rewriteLocalLink, sanitizeUrl } from "./urls.js";
import { renderState } from "./context.js";

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
  let compiled: ReturnType<typeof compilePythonRegex>;
  try {
    compiled = compilePythonRegex(pattern);
    groups = compiled.groupNames;
  } catch (e) {
    if (!(e instanceof LinkifierPatternError)) throw e;
    errors.push({ field: "__all__", message: e.message });
    return errors;
  }
  try {
    renderRegex(compiled.regex);
  } catch {
    // Upstream's RE2 rejects programs over its memory budget with this message.
    errors.push({ field: "__all__", message: "Bad regular expression: pattern too large - compile failed" });
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
 * The regex rendering applies, compiled now: V8 compiles a RegExp on its first use, so a
 * pattern too large for it ("Regular expression too large") would otherwise throw while
 * rendering every later message of the realm.
 */
function renderRegex(pattern: RegExp): RegExp {
  return forceCompile(new RegExp(`(?:${pattern.source})(?=$|[^\\p{L}\\p{N}])`, pattern.flags + "y"));
}

function forceCompile(regex: RegExp): RegExp {
  regex.lastIndex = 0;
  regex.exec("");
  regex.lastIndex = 0;
  return regex;
}

export interface CompiledLinkifier {
  /** Sticky regex matching the pattern (plus the "not followed by a letter/digit" rule). */
  regex: RegExp;
  /** The same regex with the "g" flag, to find candidate positions. */
  scan: RegExp;
  jsGroupNames: Map<string, string>;
  template: Template;
}

const cache = new Map<string, CompiledLinkifier | null>();

export function compileLinkifier(pattern: string, urlTemplate: string): CompiledLinkifier | null {
  const key = pattern + "\u0000" + urlTemplate;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let compiled: CompiledLinkifier | null;
  try {
    const c = compilePythonRegex(pattern);
    // Upstream's RE2 never backtracks; ours would, so patterns that could
    // take exponential time are not applied (they would stall rendering).
    if (c.backtrackingRisk) throw new LinkifierPatternError("backtracking risk");
    const regex = renderRegex(c.regex);
    const scan = new RegExp(regex.source, regex.flags.replace("y", "g"));
    forceCompile(scan);
    compiled = { regex, scan, jsGroupNames: c.jsGroupNames, template: uriTemplate.parse(urlTemplate) };
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

/** Match linkifier `l` at exactly `pos`; returns [matched text, URL] or null. */
function matchAt(l: CompiledLinkifier, src: string, pos: number, max: number): [string, string] | null {
  l.regex.lastIndex = pos;
  const m = l.regex.exec(src);
  if (!m || m[0].length === 0 || pos + m[0].length > max) return null;
  const values: Record<string, string> = {};
  for (const [name, js] of l.jsGroupNames) {
    const v = m.groups?.[js];
    if (v !== undefined) values[name] = v;
  }
  return [m[0], l.template.expand(values)];
}

export function linkifierRule(state: StateInline, silent: boolean): boolean {
  if (state.linkLevel > 0) return false;
  const rs = renderState(state.env);
  if (rs.linkifiers.length === 0 || !linkMayStartAt(state.src, state.pos)) return false;
  for (const l of rs.linkifiers) {
    const hit = matchAt(l, state.src, state.pos, state.posMax);
    if (!hit) continue;
    const href = sanitizeUrl(hit[1]);
    if (href === null) continue;
    if (!silent) pushLink(state, rewriteLocalLink(href, rs.lookups.realmUrl), hit[0]);
    state.pos += hit[0].length;
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

/** Topic links (the `topic_links` message field): linkifier matches and raw URLs. */
export function topicLinks(
  topic: string,
  linkifiers: Array<{ pattern: string; url_template: string }>,
): Array<{ text: string; url: string }> {
  const matches: TopicMatch[] = [];
  compileLinkifiers(linkifiers).forEach((l, precedence) => {
    for (let pos = 0; pos < topic.length; pos++) {
      if (!linkMayStartAt(topic, pos)) continue;
      const hit = matchAt(l, topic, pos, topic.length);
      if (!hit) continue;
      matches.push({ url: hit[1], text: hit[0], index: pos, precedence });
      pos += hit[0].length - 1;
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
