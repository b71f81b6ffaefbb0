/** Roles on the command line: by name (owner, admin, …) or by number (100 … 600). */
import { Role } from "../lib/roles.js";
import { UsageError } from "./usage-error.js";

const BY_NAME: Record<string, number> = {
  owner: Role.OWNER,
  administrator: Role.ADMINISTRATOR,
  admin: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR,
  member: Role.MEMBER,
  guest: Role.GUEST,
};

const NAMES: Record<number, string> = {
  [Role.OWNER]: "owner",
  [Role.ADMINISTRATOR]: "administrator",
  [Role.MODERATOR]: "moderator",
  [Role.MEMBER]: "member",
  [Role.GUEST]: "guest",
};

export const ROLE_CHOICES = "owner (100), administrator or admin (200), moderator (300), member (400), guest (600)";

export function parseRole(text: string): number {
  const key = text.trim().toLowerCase();
  const role = BY_NAME[key] ?? (/^\d+$/.test(key) && NAMES[Number(key)] !== undefined ? Number(key) : undefined);
  if (role === undefined) throw new UsageError(`invalid role '${text}'; use one of: ${ROLE_CHOICES}`);
  return role;
}

export function roleName(role: number): string {
  return NAMES[role] ?? String(role);
}
