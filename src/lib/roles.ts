/** Organization roles and the helpers that compare them. */
import type { User } from "../db/schema.js";

export const Role = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;

export const ALL_ROLES: readonly number[] = Object.values(Role);

export const isOwner = (u: Pick<User, "role">) => u.role === Role.OWNER;
export const isAdmin = (u: Pick<User, "role">) => u.role <= Role.ADMINISTRATOR;
export const isModerator = (u: Pick<User, "role">) => u.role <= Role.MODERATOR;
export const isGuest = (u: Pick<User, "role">) => u.role === Role.GUEST;

/** Bot types (spec 2.5). */
export const BotType = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;

/** Per-user email visibility values. */
export const EmailVisibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;
