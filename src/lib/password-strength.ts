/**
 * The organization's password policy with upstream's defaults: at least 6 characters, at
 * most 100, and at least 10,000 estimated guesses. The estimate is a small stand-in for
 * upstream's zxcvbn: common passwords (also with digits or symbols appended), one repeated
 * character, straight runs ("abcdef", "654321") and keyboard rows cost few guesses;
 * anything else is costed by brute force over the character classes it uses.
 */
export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 100;
export const PASSWORD_MIN_GUESSES = 10_000;

// The most used passwords of public leak lists, lowercase; their rank is their guess count.
const COMMON = [
  "password", "123456", "12345678", "qwerty", "abc123", "football", "monkey", "letmein", "dragon", "111111",
  "baseball", "iloveyou", "trustno1", "sunshine", "master", "welcome", "shadow", "ashley", "michael", "superman",
  "princess", "qwertyuiop", "passw0rd", "starwars", "whatever", "freedom", "computer", "secret", "admin", "login",
  "hello", "charlie", "donald", "jordan", "hunter", "ranger", "buster", "soccer", "hockey", "killer",
  "access", "mustang", "batman", "thomas", "tigger", "robert", "daniel", "changeme", "zaq1zaq1", "p@ssword",
];
const COMMON_RANK = new Map(COMMON.map((word, i) => [word, i + 1]));
const KEYBOARD_ROWS = ["1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm"];

export function isPasswordStrong(password: string): boolean {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) return false;
  return estimateGuesses(password) >= PASSWORD_MIN_GUESSES;
}

export function estimateGuesses(password: string): number {
  const lower = password.toLowerCase();
  // A common word followed by digits or symbols: the word's rank times the suffix space.
  const match = /^(.*?)([^a-z]*)$/.exec(lower);
  const [, stem, suffix] = match ?? ["", lower, ""];
  const rank = COMMON_RANK.get(lower) ?? COMMON_RANK.get(stem);
  if (rank !== undefined) return COMMON_RANK.has(lower) ? rank : rank * Math.pow(20, suffix.length);
  if (new Set(lower).size === 1) return 10 * lower.length;
  if (isStraightRun(lower) || isKeyboardRun(lower)) return 50 * lower.length;
  return Math.pow(characterSpace(password), [...password].length);
}

/** Each character one code point above (or below) the previous one. */
function isStraightRun(s: string): boolean {
  const codes = [...s].map((c) => c.codePointAt(0)!);
  const step = codes[1] - codes[0];
  if (Math.abs(step) !== 1) return false;
  return codes.every((c, i) => i === 0 || c - codes[i - 1] === step);
}

function isKeyboardRun(s: string): boolean {
  const reversed = [...s].reverse().join("");
  return KEYBOARD_ROWS.some((row) => row.includes(s) || row.includes(reversed));
}

function characterSpace(password: string): number {
  let space = 0;
  if (/[a-z]/.test(password)) space += 26;
  if (/[A-Z]/.test(password)) space += 26;
  if (/[0-9]/.test(password)) space += 10;
  if (/[^a-zA-Z0-9]/.test(password)) space += 33;
  return space;
}
