/**
 * URL sanitizing for links, following upstream's rules: only a fixed set of
 * schemes is allowed, scheme-less URLs get "http://" (or "mailto:" when they
 * look like an e-mail address), and links into the realm's own web app become
 * relative.
 */

// The HTML standard's safelisted schemes plus the usual web ones.
const ALLOWED_SCHEMES = new Set([
  "http", "https", "ftp", "file", "bitcoin", "geo", "im", "irc", "ircs", "magnet", "mailto",
  "matrix", "mms", "news", "nntp", "openpgp4fpr", "sip", "sms", "smsto", "ssh", "tel", "urn",
  "webcal", "wtai", "xmpp",
]);

interface UrlParts {
  scheme: string;
  netloc: string;
  hasNetloc: boolean;
  path: string;
  query: string;
  fragment: string;
}

/** A small equivalent of Python's urllib.parse.urlsplit. */
function splitUrl(url: string): UrlParts {
  let rest = url;
  let scheme = "";
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let netloc = "";
  let hasNetloc = false;
  if (rest.startsWith("//")) {
    hasNetloc = true;
    const end = rest.slice(2).search(/[/?#]/);
    netloc = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end < 0 ? "" : rest.slice(2 + end);
  }
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  return { scheme, netloc, hasNetloc, path: rest, query, fragment };
}

function joinUrl(p: UrlParts): string {
  let out = p.scheme ? p.scheme + ":" : "";
  if (p.hasNetloc || p.netloc) out += "//" + p.netloc;
  out += p.path;
  if (p.query) out += "?" + p.query;
  if (p.fragment) out += "#" + p.fragment;
  return out;
}

/** The href to use for a link target, or null when the URL is not allowed. */
export function sanitizeUrl(url: string, depth = 0): string | null {
  const parts = splitUrl(url.replace(/ /g, "%20"));
  if (!parts.scheme && !parts.netloc && parts.path.includes("@")) {
    parts.scheme = "mailto";
  } else if (!parts.scheme && !parts.netloc && parts.path.startsWith("/")) {
    return joinUrl(parts);
  } else if (!parts.scheme && !parts.netloc && !parts.path && !parts.query && parts.fragment) {
    return "#" + parts.fragment;
  }
  if (!parts.scheme) return depth > 0 ? null : sanitizeUrl("http://" + url, depth + 1);
  if (!ALLOWED_SCHEMES.has(parts.scheme)) return null;
  return joinUrl(parts);
}

/** Links to the realm's own "#narrow/…" views and uploads become relative. */
export function rewriteLocalLink(href: string, realmUrl: string): string {
  if (!realmUrl) return href;
  const prefix = realmUrl.replace(/\/+$/, "") + "/";
  if (href.startsWith(prefix + "#") || href.startsWith(prefix + "user_uploads/")) {
    return href.slice(prefix.length);
  }
  return href;
}
