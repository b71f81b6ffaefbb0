/**
 * Avatar URLs. Users with avatar_source "G" get the third-party hash-based avatar
 * (md5 of the lower-cased real email, identicon fallback), as upstream clients expect.
 */
import crypto from "node:crypto";
import type { User } from "../db/schema.js";
import { memoByText } from "./memo-by-text.js";

/** The one place naming the hash-based avatar service. */
export const HASH_AVATAR_BASE_URL = "https://secure.gravatar.com/avatar/";

export const AVATAR_SOURCE_HASH = "G";
export const AVATAR_SOURCE_UPLOADED = "U";

/** Remembered: every message record hashes its sender's email. */
const md5 = memoByText(10_000, (text) => crypto.createHash("md5").update(text).digest("hex"));

/** `<base><md5>?d=identicon&version=<n>` for a real email. */
export function hashAvatarUrl(email: string, version: number): string {
  return `${HASH_AVATAR_BASE_URL}${md5(email.toLowerCase())}?d=identicon&version=${version}`;
}

/** The avatar URL of a user (uploaded avatars are served under /user_avatars/). */
export function avatarUrl(user: Pick<User, "id" | "realm_id" | "delivery_email" | "avatar_source" | "avatar_version">): string {
  if (user.avatar_source === AVATAR_SOURCE_UPLOADED) {
    return `/user_avatars/${user.realm_id}/${md5(`${user.realm_id}:${user.id}`)}.png?version=${user.avatar_version}`;
  }
  return hashAvatarUrl(user.delivery_email, user.avatar_version);
}

/** The default organization icon: an identicon of the realm's string id. */
export function defaultRealmIconUrl(stringId: string): string {
  return `${HASH_AVATAR_BASE_URL}${md5(stringId.toLowerCase())}?d=identicon`;
}
