/**
 * Emoji for the picker: the server's list (GET server_emoji_data_url, fetched once and
 * cached for the page) and upstream's "popular" row, which its web app has built in.
 */

export interface EmojiEntry {
  code: string;
  name: string;
  /** Every name of the emoji, for search. */
  names: string[];
}

export const POPULAR: EmojiEntry[] = [
  ["1f44d", "+1"],
  ["1f389", "tada"],
  ["1f642", "smile"],
  ["2764", "heart"],
  ["1f6e0", "working_on_it"],
  ["1f419", "octopus"],
].map(([code, name]) => ({ code: code!, name: name!, names: [name!] }));

let loading: Promise<EmojiEntry[]> | undefined;

export function loadEmoji(url: string): Promise<EmojiEntry[]> {
  if (!url) return Promise.resolve(POPULAR);
  loading ??= fetch(url, { credentials: "same-origin" })
    .then((r) => {
      if (!r.ok) throw new Error(`emoji data: HTTP ${r.status}`);
      return r.json() as Promise<{ code_to_names: Record<string, string[]> }>;
    })
    .then((data) => Object.entries(data.code_to_names).map(([code, names]) => ({ code, name: names[0]!, names })))
    .catch((err) => {
      loading = undefined; // try again next time the picker opens
      throw err;
    });
  return loading;
}

/** The characters of an emoji code ("1f468-200d-1f4bb"). */
export function emojiChar(code: string): string {
  try {
    return String.fromCodePoint(...code.split("-").map((h) => parseInt(h, 16)));
  } catch {
    return "";
  }
}

/**
 * The server renders `:name:` as `<span class="emoji emoji-1f389" …>:tada:</span>` (upstream
 * clients draw it from an image sheet); the app shows the character itself instead.
 */
export function showEmojiAsText(root: HTMLElement | null): void {
  if (!root) return;
  for (const span of root.querySelectorAll<HTMLElement>("span.emoji")) {
    const code = /(?:^|\s)emoji-([0-9a-f]+(?:-[0-9a-f]+)*)(?:\s|$)/.exec(span.className)?.[1];
    const char = code ? emojiChar(code) : "";
    if (char && span.textContent !== char) span.textContent = char;
  }
}
