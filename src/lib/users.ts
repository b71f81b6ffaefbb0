/**
 * Access to other users (always scoped to the caller's realm) and email visibility.
 * Checks follow upstream's order: no such user → bot → deactivated → permission.
 */
import { ApiError } from "../errors.js";
import type { User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { findUserByDeliveryEmail, findUserById } from "../db/queries/users.js";
import { EmailVisibility, isAdmin, isModerator, isGuest } from "./roles.js";

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

/** Loads a user of the actor's realm by id, with upstream's checks and messages. */
export async function accessUserById(
  db: Queryable,
  actor: Requester & Pick<User, "realm_id">,
  userId: number,
  opts: AccessOptions,
): Promise<User> {
  const target = await findUserById(db, actor.realm_id, userId);
  if (!target) throw noSuchUser();
  return checkUserAccess(actor, target, opts);
}

/**
 * Looks a user up by email for reading: the dummy `user{id}@{host}` form finds anyone; a real
 * email finds the user only when the requester may see that user's real email.
 */
export async function accessUserByEmailForRead(
  db: Queryable,
  actor: Requester & Pick<User, "realm_id">,
  rawEmail: string,
  host: string,
): Promise<User> {
  const email = rawEmail.trim().toLowerCase();
  const dummy = /^user(\d{1,15})@(.+)$/.exec(email);
  if (dummy && dummy[2] === host.toLowerCase()) {
    const byId = await findUserById(db, actor.realm_id, Number(dummy[1]));
    if (byId) return byId;
  }
  const target = await findUserByDeliveryEmail(db, actor.realm_id, email);
  if (!target || !canSeeDeliveryEmail(actor, target)) throw noSuchUser();
  return target;
}
