/**
 * content_html_diff for the edit-history endpoint: a word-level diff of two rendered
 * HTML fragments in the shape upstream produces (its lxml-based htmldiff with
 * <ins>/<del> turned into spans): the NEW fragment's markup is kept, inserted words are
 * wrapped in `<span class="highlight_text_inserted">`, removed words are shown in place
 * in `<span class="highlight_text_deleted">` (insertions before deletions), and the
 * result is wrapped in a <div>. Our own small implementation (longest common
 * subsequence over words and tags); no maintained npm package produces this shape.
 */

interface Token {
  /** A tag (`<p>`) or a word without its trailing whitespace. */
  text: string;
  tag: boolean;
  /** Whitespace after a word. */
  ws: string;
}

function tokenize(html: string): Token[] {
  const tokens: Token[] = [];
  const re = /(<[^>]*>)|([^<\s]+)(\s*)|(\s+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html)) !== null) {
    if (m[1] !== undefined) tokens.push({ text: m[1], tag: true, ws: "" });
    else if (m[2] !== undefined) tokens.push({ text: m[2], tag: false, ws: m[3] ?? "" });
    else if (tokens.length > 0) tokens[tokens.length - 1].ws += m[4];
    else tokens.push({ text: "", tag: false, ws: m[4] });
  }
  return tokens;
}

type Op = { kind: "equal" | "insert" | "delete"; token: Token };

/** Longest-common-subsequence alignment of two token lists. */
function align(a: Token[], b: Token[]): Op[] {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i].text === b[j].text ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i].text === b[j].text) {
      ops.push({ kind: "equal", token: b[j] });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) {
      ops.push({ kind: "delete", token: a[i++] });
    } else {
      ops.push({ kind: "insert", token: b[j++] });
    }
  }
  while (i < n) ops.push({ kind: "delete", token: a[i++] });
  while (j < m) ops.push({ kind: "insert", token: b[j++] });
  return ops;
}

function wrap(cls: string, words: Token[]): string {
  if (words.length === 0) return "";
  const inner = words.map((w, k) => w.text + (k < words.length - 1 ? w.ws : "")).join("");
  const last = words[words.length - 1].ws;
  return `<span class="${cls}">${inner}</span>${last === "" ? "" : last}`;
}

export function highlightHtmlDifferences(before: string, after: string): string {
  const ops = align(tokenize(before), tokenize(after));
  let out = "";
  let k = 0;
  while (k < ops.length) {
    const op = ops[k];
    if (op.kind === "equal") {
      out += op.token.text + op.token.ws;
      k++;
      continue;
    }
    // A run of changes: inserted words (and new tags, kept as markup), then deleted words.
    const inserted: Token[] = [];
    const deleted: Token[] = [];
    let pending = "";
    while (k < ops.length && ops[k].kind !== "equal") {
      const t = ops[k].token;
      if (ops[k].kind === "insert") {
        if (t.tag) {
          pending += wrap("highlight_text_inserted", inserted.splice(0)) + t.text;
        } else if (t.text !== "") inserted.push(t);
        else pending += t.ws;
      } else if (!t.tag && t.text !== "") deleted.push(t);
      k++;
    }
    out += pending + wrap("highlight_text_inserted", inserted);
    if (deleted.length > 0) {
      const del = wrap("highlight_text_deleted", deleted);
      out += /\s$/.test(out) || out === "" || out.endsWith(">") ? del : ` ${del}`;
    }
  }
  return `<div>${out}</div>`;
}
