/** Invitation rules shared by the API, the actions and the sign-up pages (upstream wording). */
import { randomBytes } from "node:crypto";
import { ApiError, mustBeOwner } from "../errors.js";
import type { Invite, User } from "../db/schema.js";
import { isAdmin, isOwner, Role } from "./roles.js";

export const INVITE_ROLES: readonly number[] = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];
export const MAX_WELCOME_MESSAGE_LENGTH = 8000;

export const NO_SUCH_INVITATION = "No such invitation";
export const ALREADY_REVOKED = "Invitation has already been revoked";
export const SOME_ALREADY_USING =
  "Some of those addresses are already using Parley, so we didn't send them an invitation. We did send invitations to everyone else!";
export const SOME_INVALID = "Some emails did not validate, so we didn't send any invitations.";
export const NOBODY_INVITED = "We weren't able to invite anyone.";
export const DAILY_LIMIT =
  "To protect users, Parley limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.";

/** [email, reason, deactivated] as upstream's INVITATION_FAILED `errors`. */
export type InviteError = [string, string, boolean];

export class InvitationFailedError extends ApiError {
  constructor(msg: string, errors: InviteError[], opts: { sentInvitations: boolean; dailyLimitReached?: boolean }) {
    super(msg, {
      code: "INVITATION_FAILED",
      data: { errors, sent_invitations: opts.sentInvitations, license_limit_reached: false, daily_limit_reached: opts.dailyLimitReached ?? false },
    });
  }
}

/**
 * Splits on commas and newlines; `Name <addr>` gives addr; entries are trimmed and
 * de-duplicated (empty entries are kept as "", which the action skips, as upstream).
 */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const bracketed = /<(.*)>/.exec(part);
    out.add((bracketed ? bracketed[1]! : part).trim());
  }
  return [...out];
}

/**
 * Who may create or manage an invitation for `role`: owners only for owners; administrators
 * when `requireAdmin` (inviting moderators or above, or managing someone else's invitation).
 */
export function checkInviteRolePermission(role: number, user: User, requireAdmin: boolean): void {
  if (role === Role.OWNER && !isOwner(user)) throw mustBeOwner();
  if (requireAdmin && !isAdmin(user)) throw new ApiError("Must be an organization administrator");
}

/** Inviting moderators, administrators or owners needs an administrator. */
export const roleNeedsAdmin = (role: number) => role === Role.OWNER || role === Role.ADMINISTRATOR || role === Role.MODERATOR;

export function newLinkKey(): string {
  return randomBytes(18).toString("base64url").toLowerCase().replace(/[^a-z0-9]/g, "x");
}

export function inviteLinkUrl(realmUrl: string, key: string): string {
  return `${realmUrl}/join/${key}/`;
}

export function isInviteUsable(invite: Invite, now: number): boolean {
  return invite.status === 0 && (invite.expires_at === null || invite.expires_at >= now);
}

/** The API's Invite object (GET /invites). */
export function toApiInvite(invite: Invite, realmUrl: string): Record<string, unknown> {
  const base = {
    id: invite.id,
    invited_by_user_id: invite.referrer_id,
    invited: invite.invited_at,
    expiry_date: invite.expires_at,
    invited_as: invite.invited_as,
    notify_referrer_on_join: invite.notify_referrer_on_join === 1,
    is_multiuse: invite.is_multiuse === 1,
  };
  return invite.is_multiuse === 1 ? { ...base, link_url: inviteLinkUrl(realmUrl, invite.link_key!) } : { ...base, email: invite.email };
}
