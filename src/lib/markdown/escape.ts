/** HTML escaping in the exact forms upstream's renderer produces. */

/** Text nodes: only &, < and > are escaped (quotes stay literal). */
export function escapeText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

/** Attribute values (always double-quoted). */
export function escapeAttr(s: string): string {
  return s.replace(/[&<>"\n]/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#10;",
  );
}

/** Code block bodies (the syntax highlighter's escaping: quotes too). */
export function escapeCode(s: string): string {
  return s.replace(/[&<>"']/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;",
  );
}

/** Python's html.escape(s, quote=True). */
export function escapeHtmlQuote(s: string): string {
  return s.replace(/[&<>"']/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#x27;",
  );
}
