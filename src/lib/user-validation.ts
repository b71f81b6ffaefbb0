/** Validation of names and emails for new and renamed users, with upstream's messages. */
import { ApiError } from "../errors.js";
import { isPasswordStrong } from "./password-strength.js";

export const MAX_NAME_LENGTH = 100;
export const MIN_NAME_LENGTH = 2;

/** Returns the stripped name or throws upstream's message. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > MAX_NAME_LENGTH) throw new ApiError("Name too long!");
  if (name.length < MIN_NAME_LENGTH) throw new ApiError("Name too short!");
  // Control characters and the characters that break mention syntax.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f*`\\>"@]/.test(name)) throw new ApiError("Invalid characters in name!");
  if (/\|\d+$/.test(raw)) throw new ApiError("Invalid format!");
  return name;
}

/** A pragmatic email check (one @, a dotted domain, no spaces), as upstream's validator accepts. */
export function isValidEmail(email: string): boolean {
  return email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The organization's password policy (lib/password-strength), with the sign-up message. */
export function checkPasswordStrength(password: string): void {
  if (!isPasswordStrong(password)) throw new ApiError("The password is too weak.");
}
