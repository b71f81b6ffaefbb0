/**
 * Alert-word matching: a word alerts when it occurs with no letter, digit or underscore
 * right before or after it. Plain string search, so the text users choose as alert words
 * is never compiled into a regular expression.
 */
const WORD_CHAR = /[\p{L}\p{N}_]/u;

function isWordCodePoint(cp: number | undefined): boolean {
  return cp !== undefined && WORD_CHAR.test(String.fromCodePoint(cp));
}

/** The code point that ends just before `index` (a surrogate pair counts as one). */
function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) return text.codePointAt(index - 2);
  return text.codePointAt(index - 1);
}

/** Whether `word` occurs in `text` as a whole word (both already lowercased). */
export function containsAlertWord(text: string, word: string): boolean {
  if (word === "") return false;
  for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
    if (!isWordCodePoint(codePointBefore(text, i)) && !isWordCodePoint(text.codePointAt(i + word.length))) return true;
  }
  return false;
}
