/**
 * toApiUser: a users row → the API user record (spec 2.5), as the requester may see it.
 * Pure: everything it needs (profile values, the requester) is passed in.
 */
import type { UserCard } from "../db/schema.js";
import { AVATAR_SOURCE_HASH, avatarUrl } from "../lib/avatar.js";
import { isAdmin, isGuest, isOwner } from "../lib/roles.js";
import { apiEmail, canSeeDeliveryEmail, type Requester } from "../lib/users.js";

export interface ProfileValue {
  value: string;
  rendered_value?: string | null;
}
/** Field id (as a string key) → value. */
export type ProfileData = Record<string, ProfileValue>;

export interface UserView {
  /** The caller; null for a spectator (public-access GET /users). */
  requester: Requester | null;
  /** The realm's host, for dummy emails. */
  realmHost: string;
  /** client_hashavatar: null avatar_url for hash avatars whose real email the requester sees. */
  clientHashAvatar: boolean;
  /** Profile values of this user when requested (humans only); undefined: not requested. */
  profileData?: ProfileData;
  /** "own": GET /users/me shape (no bot fields for humans, avatar_url always a URL). */
  shape?: "own" | "list";
}

/** ISO 8601 with an explicit +00:00 offset; times are whole seconds, so no fractional part. */
export function isoTimestamp(seconds: number): string {
  return `${new Date(Math.floor(seconds) * 1000).toISOString().slice(0, 19)}+00:00`;
}

export function toApiUser(user: UserCard, view: UserView): Record<string, unknown> {
  const own = view.shape === "own";
  const seesEmail = canSeeDeliveryEmail(view.requester, user);
  const hideAvatar = !own && view.clientHashAvatar && seesEmail && user.avatar_source === AVATAR_SOURCE_HASH;
  const record: Record<string, unknown> = {
    email: apiEmail(user, view.realmHost),
    user_id: user.id,
    avatar_version: user.avatar_version,
    is_admin: isAdmin(user),
    is_owner: isOwner(user),
    is_guest: isGuest(user),
    role: user.role,
    is_bot: user.is_bot === 1,
    full_name: user.full_name,
    timezone: user.timezone,
    is_active: user.is_active === 1,
    date_joined: isoTimestamp(user.date_joined),
    avatar_url: hideAvatar ? null : avatarUrl(user),
    delivery_email: seesEmail ? user.delivery_email : null,
  };
  if (view.requester === null) {
    // Spectators get no personal details beyond the public card (as upstream).
    delete record.timezone;
    record.date_joined = (record.date_joined as string).slice(0, 10);
  }
  if (user.is_bot) {
    record.bot_type = user.bot_type;
    record.bot_owner_id = user.bot_owner_id;
  } else {
    if (!own) {
      // Spec 2.5: null for non-bots in list and lookup records.
      record.bot_type = null;
      record.bot_owner_id = null;
    }
    if (view.profileData !== undefined) record.profile_data = view.profileData;
  }
  return record;
}
