/**
 * CSRF tokens as Django makes them (upstream's web client sends them): a 32-character
 * secret of letters and digits, handed out masked as 64 characters (a random mask, then the
 * secret shifted by it) so the token differs on every page while the secret stays. A token
 * is accepted masked or bare. The reasons are Django's, which upstream puts in its
 * CSRF_FAILED error ("CSRF error: <reason>").
 */
import crypto from "node:crypto";
import { generateApiKey } from "./secrets.js";

const CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const SECRET_LENGTH = 32;
const TOKEN_LENGTH = 64;

export const CSRF_REASONS = {
  noCookie: "CSRF cookie not set.",
  tokenMissing: "CSRF token missing.",
} as const;

/** Where the token came from, in Django's words: the form field or the X-CSRFToken header. */
export type TokenSource = "POST" | "header";

export function newCsrfSecret(): string {
  return generateApiKey();
}

export function maskCsrfSecret(secret: string): string {
  const mask = generateApiKey();
  let cipher = "";
  for (let i = 0; i < SECRET_LENGTH; i++) cipher += CHARS[(CHARS.indexOf(secret[i]) + CHARS.indexOf(mask[i])) % CHARS.length];
  return mask + cipher;
}

function unmask(token: string): string {
  if (token.length === SECRET_LENGTH) return token;
  const mask = token.slice(0, SECRET_LENGTH);
  let secret = "";
  for (let i = 0; i < SECRET_LENGTH; i++) {
    secret += CHARS[(CHARS.indexOf(token[SECRET_LENGTH + i]) - CHARS.indexOf(mask[i]) + CHARS.length) % CHARS.length];
  }
  return secret;
}

/** Why the token's shape is wrong ("has incorrect length" …), or null when it is well formed. */
function formatProblem(token: string): string | null {
  if (token.length !== SECRET_LENGTH && token.length !== TOKEN_LENGTH) return "has incorrect length";
  if (!/^[A-Za-z0-9]+$/.test(token)) return "has invalid characters";
  return null;
}

/** The secret a cookie's value carries, or null when the cookie is malformed (treated as absent). */
export function secretOfCookie(value: string | undefined): string | null {
  if (value === undefined || formatProblem(value) !== null) return null;
  return unmask(value);
}

/**
 * Checks `token` (from the form or the header) against `secret`; the refusal reason in
 * Django's words, or null when it matches.
 */
export function csrfTokenProblem(token: string | undefined, secret: string, source: TokenSource): string | null {
  if (token === undefined || token === "") return CSRF_REASONS.tokenMissing;
  const where = source === "POST" ? "POST" : "the 'X-Csrftoken' HTTP header";
  const problem = formatProblem(token);
  if (problem !== null) return `CSRF token from ${where} ${problem}.`;
  const a = Buffer.from(unmask(token));
  const b = Buffer.from(secret);
  if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) return `CSRF token from ${where} incorrect.`;
  return null;
}
