/**
 * Access to other users (always scoped to the caller's realm) and email visibility.
 * Checks follow upstream's order: no such user → bot → deactivated → permission.
 */
import { ApiError } from "../errors.js";
import type { User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { activeRealmUsers, findUserByDeliveryEmail, findUserById } from "../db/queries/users.js";
import { usersByEmails, usersByIds } from "../db/queries/messages.js";
import { groupIdsContainingUser, groupMemberIdsRecursive } from "../db/queries/user-groups.js";
import { canAccessAllUsersGroupId, userIdsInDirectMessagesWith, userIdsSharingChannelSubscriptions } from "../db/queries/user-access.js";
import { isoTimestamp } from "../api-records/user.js";
import { EmailVisibility, isAdmin, isModerator, isGuest, Role } from "./roles.js";

export type Requester = Pick<User, "id" | "role">;
type Target = Pick<User, "id" | "is_bot" | "email_address_visibility">;

export const noSuchUser = () => new ApiError("No such user");
export const insufficientPermission = () => new ApiError("Insufficient permission");

/** Whether the requester (null: a spectator) may see the target's real email. */
export function canSeeDeliveryEmail(requester: Requester | null, target: Target): boolean {
  if (requester !== null && requester.id === target.id) return true;
  // Bots' emails are always public.
  if (target.is_bot) return true;
  if (target.email_address_visibility === EmailVisibility.EVERYONE) return true;
  if (requester === null) return false;
  switch (target.email_address_visibility) {
    case EmailVisibility.MEMBERS:
      return !isGuest(requester);
    case EmailVisibility.MODERATORS:
      return isModerator(requester);
    case EmailVisibility.ADMINS:
      return isAdmin(requester);
    default:
      return false;
  }
}

/** The realm host used in dummy emails (lower-cased). */
export function dummyEmail(userId: number, host: string): string {
  return `user${userId}@${host.toLowerCase()}`;
}

/** The API `email`: the real address when it is public to everyone, else the dummy address. */
export function apiEmail(target: Pick<User, "id" | "is_bot" | "email_address_visibility" | "delivery_email">, host: string): string {
  return target.is_bot || target.email_address_visibility === EmailVisibility.EVERYONE
    ? target.delivery_email
    : dummyEmail(target.id, host);
}

/**
 * Users of the realm by API email (the `email` field every client sees: the real address
 * only where it is public, else user{id}@{host}), case-insensitively, as upstream looks
 * users up by email. A hidden real address finds no one, exactly like a made-up one.
 * Keys are the lowercased emails. Two queries whatever the number of emails.
 */
export async function usersByApiEmails(db: Queryable, realmId: number, host: string, emails: readonly string[]): Promise<Map<string, User>> {
  const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
  const dummyPattern = /^user(\d{1,15})@(.+)$/;
  const dummyIds = wanted
    .map((e) => dummyPattern.exec(e))
    .filter((m): m is RegExpExecArray => m !== null && m[2] === host.toLowerCase())
    .map((m) => Number(m[1]));
  const [byRealEmail, byId] = await Promise.all([usersByEmails(db, realmId, wanted), usersByIds(db, realmId, dummyIds)]);
  const found = new Map<string, User>();
  for (const u of [...byRealEmail, ...byId]) {
    const email = apiEmail(u, host).toLowerCase();
    if (wanted.includes(email)) found.set(email, u);
  }
  return found;
}

/** Admins administer everyone; a bot's owner administers the bot. */
export function canAdministerUser(actor: Pick<User, "id" | "role">, target: Pick<User, "is_bot" | "bot_owner_id">): boolean {
  return isAdmin(actor) || (target.is_bot === 1 && target.bot_owner_id === actor.id);
}

export interface AccessOptions {
  /** Require that the caller can administer the target. */
  forAdmin: boolean;
  allowDeactivated?: boolean;
  allowBots?: boolean;
}

export function checkUserAccess(actor: Requester, target: User, opts: AccessOptions): User {
  if (target.is_bot && !opts.allowBots) throw noSuchUser();
  if (!target.is_active && !opts.allowDeactivated) throw new ApiError("User is deactivated");
  if (opts.forAdmin && !canAdministerUser(actor, target)) throw insufficientPermission();
  return target;
}

/** Users for whom accessibleUserIds is null whatever the realm's settings (known without a query): all but guests. */
export function accessesEveryUser(user: Pick<User, "role" | "is_bot">): boolean {
  return !isGuest(user) || !!user.is_bot;
}

/**
 * Limited user access (upstream user_access_restricted_in_realm / get_accessible_user_ids),
 * the one place the rule lives: a guest outside the realm's can_access_all_users_group
 * (default role:everyone, so nobody is limited) may access only themselves, users sharing
 * an active channel subscription with them, and users they share a direct-message
 * conversation with; bots are always accessible (see canAccessUserIn). Returns null when
 * the user may access everyone. At most five queries, whatever the realm's size.
 */
export async function accessibleUserIds(db: Queryable, user: Pick<User, "id" | "realm_id" | "role" | "is_bot">): Promise<Set<number> | null> {
  if (accessesEveryUser(user)) return null;
  const groupId = await canAccessAllUsersGroupId(db, user.realm_id);
  if (groupId === null) return null;
  if ((await groupIdsContainingUser(db, user.realm_id, user.id)).has(groupId)) return null;
  const ids = new Set(await userIdsSharingChannelSubscriptions(db, user.realm_id, user.id));
  for (const id of await userIdsInDirectMessagesWith(db, user.realm_id, user.id)) ids.add(id);
  ids.add(user.id);
  return ids;
}

/**
 * The inverse of accessibleUserIds: which of the realm's active users can access `target`
 * (upstream get_user_ids_who_can_access_user), the audience of events about the target.
 * Everyone when the target is a bot or nobody is limited; otherwise every user who is not
 * a limited guest, plus the limited guests sharing an active channel subscription or a
 * direct-message conversation with the target. At most five queries whatever the size.
 */
export async function userIdsWhoCanAccess(db: Queryable, realmId: number, target: Pick<User, "id" | "is_bot">): Promise<number[]> {
  return (await usersWhoCanAccess(db, realmId, target)).map((u) => u.id);
}

/** userIdsWhoCanAccess with each user's role (for rules that also depend on it, e.g. email visibility). */
export async function usersWhoCanAccess(db: Queryable, realmId: number, target: Pick<User, "id" | "is_bot">): Promise<Array<{ id: number; role: number }>> {
  const users = await activeRealmUsers(db, realmId);
  if (target.is_bot) return users;
  const limited = await limitedGuestIds(db, realmId, users);
  if (limited.size === 0) return users;
  // Sharing a subscription or a conversation is symmetric: the target's peers are the guests who may access it.
  const peers = new Set([target.id, ...(await userIdsSharingChannelSubscriptions(db, realmId, target.id)), ...(await userIdsInDirectMessagesWith(db, realmId, target.id))]);
  return users.filter((u) => !limited.has(u.id) || peers.has(u.id));
}

/** Among these users, the guests whose user access is limited (see accessibleUserIds). At most three queries. */
export async function limitedGuestIds(db: Queryable, realmId: number, users: ReadonlyArray<{ id: number; role: number; is_bot: number }>): Promise<Set<number>> {
  const guests = users.filter((u) => isGuest(u) && !u.is_bot);
  if (guests.length === 0) return new Set();
  const groupId = await canAccessAllUsersGroupId(db, realmId);
  if (groupId === null) return new Set();
  const unlimited = (await groupMemberIdsRecursive(db, realmId, [groupId])).get(groupId) ?? new Set<number>();
  return new Set(guests.filter((u) => !unlimited.has(u.id)).map((u) => u.id));
}

/** Whether a target is accessible given accessibleUserIds' result. */
export function canAccessUserIn(accessible: ReadonlySet<number> | null, target: Pick<User, "id" | "is_bot">): boolean {
  return accessible === null || target.is_bot === 1 || accessible.has(target.id);
}

/** Upstream's INACCESSIBLE_USER_NAME. */
export const INACCESSIBLE_USER_NAME = "Unknown user";
/** Upstream's avatar for inaccessible users (a static image). */
export const INACCESSIBLE_USER_AVATAR_URL = "/static/images/unknown-user-avatar.png";

/**
 * The placeholder record upstream returns for a user the requester cannot access
 * (get_data_for_inaccessible_user): only the id is real.
 */
export function inaccessibleUserRecord(userId: number, host: string): Record<string, unknown> {
  return {
    email: dummyEmail(userId, host),
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: Role.MEMBER,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: "",
    is_active: true,
    date_joined: isoTimestamp(0),
    delivery_email: null,
    avatar_url: INACCESSIBLE_USER_AVATAR_URL,
    profile_data: {},
  };
}

/** Loads a user of the actor's realm by id, with upstream's checks and messages. */
export async function accessUserById(
  db: Queryable,
  actor: Requester & Pick<User, "realm_id" | "is_bot">,
  userId: number,
  opts: AccessOptions,
): Promise<User> {
  const target = await findUserById(db, actor.realm_id, userId);
  if (!target) throw noSuchUser();
  checkUserAccess(actor, target, opts);
  // Read access (step 5 of upstream's order): a limited guest cannot see this user.
  if (!opts.forAdmin && !canAccessUserIn(await accessibleUserIds(db, actor), target)) throw insufficientPermission();
  return target;
}

/**
 * Looks a user up by email for reading: the dummy `user{id}@{host}` form finds anyone; a real
 * email finds the user only when the requester may see that user's real email.
 */
export async function accessUserByEmailForRead(
  db: Queryable,
  actor: Requester & Pick<User, "realm_id" | "is_bot">,
  rawEmail: string,
  host: string,
): Promise<User> {
  const email = rawEmail.trim().toLowerCase();
  const dummy = /^user(\d{1,15})@(.+)$/.exec(email);
  if (dummy && dummy[2] === host.toLowerCase()) {
    const byId = await findUserById(db, actor.realm_id, Number(dummy[1]));
    if (byId) {
      if (!canAccessUserIn(await accessibleUserIds(db, actor), byId)) throw insufficientPermission();
      return byId;
    }
  }
  const target = await findUserByDeliveryEmail(db, actor.realm_id, email);
  if (!target || !canSeeDeliveryEmail(actor, target)) throw noSuchUser();
  if (!canAccessUserIn(await accessibleUserIds(db, actor), target)) throw insufficientPermission();
  return target;
}
