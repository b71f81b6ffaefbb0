/**
 * Channel access rules (the only way views load a channel a user names) and channel
 * name/description validation, in upstream's wording.
 *
 * - content access: web-public channels → any user of the realm; public channels →
 *   any non-guest; otherwise an active subscription.
 * - metadata access (name, description, subscribers): content access, or a realm
 *   administrator (admins implicitly administer every channel).
 * A channel of another realm, a missing one and an inaccessible one all give the same error.
 */
import { ApiError } from "../errors.js";
import type { Channel, Realm, User } from "../db/schema.js";
import { isUserInGroup } from "../db/queries/user-groups.js";
import type { Queryable } from "../db/tx.js";
import { findChannelById, findChannelByName } from "../db/queries/channels.js";
import { isAdmin, isGuest } from "./roles.js";
import { usersByApiEmails } from "./users.js";
import { usersByIds } from "../db/queries/messages.js";

export const MAX_CHANNEL_NAME_LENGTH = 60;
export const MAX_CHANNEL_DESCRIPTION_LENGTH = 1024;

export const INVALID_CHANNEL_ID = "Invalid channel ID";
export const invalidChannelName = (name: string) => `Invalid channel name '${name}'`;

export interface ChannelAccess {
  channel: Channel;
  /** The caller has an active subscription. */
  subscribed: boolean;
}

export interface AccessOptions {
  /** Archived channels are invalid unless this is set. */
  allowArchived?: boolean;
  /** Also allow callers who only have metadata access (realm administrators). */
  metadataOnly?: boolean;
}

/** Whether the user may read the channel's messages (and see it at all). */
export function canAccessChannel(user: Pick<User, "role" | "realm_id">, channel: Channel, subscribed: boolean): boolean {
  if (channel.realm_id !== user.realm_id) return false;
  if (channel.is_web_public) return true;
  if (!channel.invite_only && !isGuest(user)) return true;
  return subscribed;
}

/** Whether the user may see the channel's name, description and subscribers. */
export function canAccessChannelMetadata(user: Pick<User, "role" | "realm_id">, channel: Channel, subscribed: boolean): boolean {
  if (canAccessChannel(user, channel, subscribed)) return true;
  return channel.realm_id === user.realm_id && isAdmin(user);
}

/**
 * Whether the user may read messages sent before they subscribed: web-public channels,
 * public channels for non-guests, and history-public private channels for subscribers.
 */
export function canSeeChannelHistory(user: Pick<User, "role" | "realm_id">, channel: Channel, subscribed: boolean): boolean {
  if (channel.realm_id !== user.realm_id) return false;
  if (channel.is_web_public) return true;
  if (!channel.invite_only && channel.history_public_to_subscribers && !isGuest(user)) return true;
  return channel.history_public_to_subscribers === 1 && subscribed;
}

async function isSubscribed(db: Queryable, user: User, channel: Channel): Promise<boolean> {
  if (channel.recipient_id === null) return false;
  const row = await db
    .selectFrom("subscriptions")
    .select("id")
    .where("realm_id", "=", user.realm_id)
    .where("user_id", "=", user.id)
    .where("recipient_id", "=", channel.recipient_id)
    .where("active", "=", 1)
    .executeTakeFirst();
  return row !== undefined;
}

async function checkAccess(db: Queryable, user: User, channel: Channel | undefined, error: string, opts: AccessOptions): Promise<ChannelAccess> {
  if (!channel || channel.realm_id !== user.realm_id) throw new ApiError(error);
  if (channel.deactivated && !opts.allowArchived) throw new ApiError(error);
  const subscribed = await isSubscribed(db, user, channel);
  const ok = opts.metadataOnly ? canAccessChannelMetadata(user, channel, subscribed) : canAccessChannel(user, channel, subscribed);
  if (!ok) throw new ApiError(error);
  return { channel, subscribed };
}

/** Loads a channel of the caller's realm by id: `Invalid channel ID` when missing or inaccessible. */
export async function accessChannelById(db: Queryable, user: User, channelId: number, opts: AccessOptions = {}): Promise<ChannelAccess> {
  return checkAccess(db, user, await findChannelById(db, user.realm_id, channelId), INVALID_CHANNEL_ID, opts);
}

/** Loads a channel by name (case-insensitive): `Invalid channel name '<name>'` when missing or inaccessible. */
export async function accessChannelByName(db: Queryable, user: User, name: string, opts: AccessOptions = {}): Promise<ChannelAccess> {
  return checkAccess(db, user, await findChannelByName(db, user.realm_id, name), invalidChannelName(name), opts);
}

/**
 * Loads a channel the caller wants to modify or archive (archived ones included).
 * Realm administrators administer every channel; anyone else who can see it gets
 * `You do not have permission to administer this channel.`; others `Invalid channel ID`.
 */
export async function accessChannelForAdministration(db: Queryable, user: User, channelId: number): Promise<ChannelAccess> {
  const channel = await findChannelById(db, user.realm_id, channelId);
  if (!channel || channel.realm_id !== user.realm_id) throw new ApiError(INVALID_CHANNEL_ID);
  const subscribed = await isSubscribed(db, user, channel);
  if (isAdmin(user)) return { channel, subscribed };
  if (canAccessChannel(user, channel, subscribed)) throw new ApiError("You do not have permission to administer this channel.");
  throw new ApiError(INVALID_CHANNEL_ID);
}

/** Upstream's check_stream_name: the name is checked as given (callers strip first). */
export function checkChannelName(name: string): void {
  if (name.trim() === "") throw new ApiError("Channel name can't be empty.");
  if ([...name].length > MAX_CHANNEL_NAME_LENGTH) {
    throw new ApiError(`Channel name too long (limit: ${MAX_CHANNEL_NAME_LENGTH} characters).`);
  }
  const position = firstUnprintablePosition(name);
  if (position !== null) throw new ApiError(`Invalid character in channel name, at position ${position}.`);
}

/** Upstream's check_string_is_printable: 1-based position of the first control, surrogate or non-character. */
export function firstUnprintablePosition(text: string): number | null {
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const cp = chars[i]!.codePointAt(0)!;
    const nonChar = (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
    if (/[\p{Cc}\p{Cs}]/u.test(chars[i]!) || nonChar) return i + 1;
  }
  return null;
}

/**
 * Who may see a channel's metadata (the recipients of its events): web-public → every
 * active user; public → every active non-guest plus guest subscribers; private →
 * subscribers and realm administrators. Pure: callers batch-load users and subscribers.
 */
export function channelAudience(
  channel: Channel,
  activeUsers: ReadonlyArray<{ id: number; role: number }>,
  subscriberIds: Iterable<number>,
): number[] {
  const subs = new Set(subscriberIds);
  const ids = activeUsers
    .filter((u) => {
      if (channel.is_web_public) return true;
      if (!channel.invite_only && !isGuest(u)) return true;
      return subs.has(u.id) || isAdmin(u);
    })
    .map((u) => u.id);
  return ids.sort((a, b) => a - b);
}


/** Upstream's PrincipalError: unknown, deactivated or other-realm users named in `principals`. */
export function principalError(principal: string | number): ApiError {
  return new ApiError(`User not authorized to execute queries on behalf of '${principal}'`, {
    code: "UNAUTHORIZED_PRINCIPAL",
    status: 403,
    data: { principal },
  });
}

/**
 * Resolves `principals` (all ids or all emails) to active users of the caller's realm.
 * Emails are API emails (see usersByApiEmails): a real address the caller may not see
 * fails exactly like a made-up one.
 */
export async function resolvePrincipals(db: Queryable, actor: User, host: string, principals: ReadonlyArray<string | number>): Promise<User[]> {
  const emails = principals.filter((p): p is string => typeof p === "string");
  const ids = principals.filter((p): p is number => typeof p === "number");
  const [byEmail, byId] = await Promise.all([
    usersByApiEmails(db, actor.realm_id, host, emails),
    usersByIds(db, actor.realm_id, ids).then((users) => new Map(users.map((u) => [u.id, u]))),
  ]);
  const out = new Map<number, User>();
  for (const principal of principals) {
    const user = typeof principal === "number" ? byId.get(principal) : byEmail.get(principal.trim().toLowerCase());
    if (!user || !user.is_active) throw principalError(principal);
    out.set(user.id, user);
  }
  return [...out.values()];
}

/** Web-public channels need the realm's public-access option and the creation permission. */
export async function checkWebPublicAllowed(db: Queryable, realm: Realm, user: User): Promise<void> {
  if (!realm.enable_spectator_access) throw new ApiError("Web-public channels are not enabled.");
  const groupId = realm.can_create_web_public_channel_group_id;
  if (groupId === null || !(await isUserInGroup(db, realm.id, user.id, groupId))) throw new ApiError("Insufficient permission");
}
