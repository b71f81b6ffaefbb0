/**
 * Invitations (spec 4.5): send email invitations, list, revoke and resend them, create and
 * revoke reusable links. Members and administrators only (upstream require_member_or_admin).
 */
import {
  doCreateMultiuseInvite,
  doInviteUsers,
  doResendInvite,
  doRevokeInvite,
  doRevokeMultiuseInvite,
  type InviteOptions,
} from "../../actions/invites.js";
import { listPendingInvites } from "../../db/queries/invites.js";
import { groupIdsContainingUser } from "../../db/queries/user-groups.js";
import { ApiError } from "../../errors.js";
import { nowSeconds } from "../../context.js";
import { checkInviteChannels, checkInviteGroups } from "../../lib/invite-checks.js";
import {
  checkInviteRolePermission,
  INVITE_ROLES,
  MAX_WELCOME_MESSAGE_LENGTH,
  parseInviteeEmails,
  roleNeedsAdmin,
  toApiInvite,
} from "../../lib/invites.js";
import { realmUrl } from "../../lib/realm-host.js";
import { isAdmin, isGuest, Role } from "../../lib/roles.js";
import { p, v } from "../params/kinds.js";
import { paramMessages as m } from "../params/messages.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, View, ViewResult } from "../request.js";
import { route } from "../route.js";

function requireMemberOrAdmin(req: AuthedRequest): void {
  if (isGuest(req.user)) throw new ApiError("Not allowed for guest users");
  if (req.user.is_bot) throw new ApiError("This endpoint does not accept bot requests.");
}

const inviteAsParam = () =>
  p
    .json((value, name) => {
      const n = v.int()(value, name);
      if (!INVITE_ROLES.includes(n)) throw new ApiError(m.notInList(name));
      return n;
    })
    .default(Role.MEMBER);

const emailInviteSpec = (req: AuthedRequest) => ({
  group_ids: p.intList().default([]),
  include_realm_default_subscriptions: p.bool().default(false),
  invite_as: inviteAsParam(),
  invite_expires_in_minutes: p.json(v.nullable(v.int())).default(req.ctx.config.invitationLinkValidityMinutes as number | null),
  invitee_emails: p.str(),
  notify_referrer_on_join: p.bool().default(true),
  stream_ids: p.intList(),
  welcome_message_custom_text: p.str({ maxLength: MAX_WELCOME_MESSAGE_LENGTH }).optional(),
});

type CommonParams = Omit<ReturnType<typeof parseParams<ReturnType<typeof emailInviteSpec>>>, "invitee_emails">;

/** Upstream's checks after parsing, in order; `beforeChannels` is the email list check. */
async function checkCommon(req: AuthedRequest, params: CommonParams, allowed: boolean, beforeChannels: () => void): Promise<InviteOptions> {
  const { db } = req.ctx;
  if (!allowed) throw new ApiError("Insufficient permission");
  checkInviteRolePermission(params.invite_as, req.user, roleNeedsAdmin(params.invite_as));
  beforeChannels();
  const channels = await checkInviteChannels(db, req.realm, req.user, params.stream_ids);
  const groupIds = await checkInviteGroups(db, req.realm, req.user, params.group_ids);
  if (params.welcome_message_custom_text !== undefined && !isAdmin(req.user)) throw new ApiError("Must be an organization administrator");
  return {
    channels,
    groupIds,
    includeRealmDefaultSubscriptions: params.include_realm_default_subscriptions,
    inviteAs: params.invite_as,
    expiresInMinutes: params.invite_expires_in_minutes,
    notifyReferrerOnJoin: params.notify_referrer_on_join,
    welcomeMessageCustomText: params.welcome_message_custom_text ?? null,
  };
}

/** POST /api/v1/invites */
async function invite(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const params = parseParams(req, emailInviteSpec(req));
  const group = req.realm.can_invite_users_group_id;
  const allowed = group !== null && (await groupIdsContainingUser(req.ctx.db, req.realm.id, req.user.id)).has(group);
  const opts = await checkCommon(req, params, allowed, () => {
    if (params.invitee_emails === "") throw new ApiError("You must specify at least one email address.");
  });
  await doInviteUsers(req.ctx, req.realm, req.user, parseInviteeEmails(params.invitee_emails), opts);
  return {};
}

/**
 * POST /api/v1/invites/multiuse. Parley has no separate "who may create reusable links"
 * setting yet: upstream's default for it, administrators, applies.
 */
async function createMultiuse(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const { invitee_emails: _unused, ...spec } = emailInviteSpec(req);
  const params = parseParams(req, { ...spec, stream_ids: p.intList().default([]) });
  const opts = await checkCommon(req, params, isAdmin(req.user), () => {});
  return { invite_link: await doCreateMultiuseInvite(req.ctx, req.realm, req.user, opts) };
}

/** GET /api/v1/invites: the caller's pending invitations, everyone's for administrators. */
async function list(req: AuthedRequest): Promise<ViewResult> {
  requireMemberOrAdmin(req);
  const rows = await listPendingInvites(req.ctx.db, req.realm.id, nowSeconds(req.ctx), isAdmin(req.user) ? null : req.user.id);
  const url = realmUrl(req.realm.string_id, req.ctx.config.externalHost);
  return { invites: rows.map((r) => toApiInvite(r, url)) };
}

/**
 * DELETE /api/v1/invites/{invite_id}, DELETE /api/v1/invites/multiuse/{invite_id} and
 * POST /api/v1/invites/{invite_id}/resend: one invitation by id (the action checks who may).
 */
function onInvite(act: typeof doRevokeInvite): View {
  return async (req) => {
    requireMemberOrAdmin(req);
    const id = pathInt(req, "invite_id");
    parseParams(req, {});
    await act(req.ctx, req.realm, req.user, id);
    return {};
  };
}

export const routes = [
  route("GET", "/invites", list),
  route("POST", "/invites", invite),
  route("POST", "/invites/multiuse", createMultiuse),
  route("DELETE", "/invites/{invite_id:int}", onInvite(doRevokeInvite)),
  route("DELETE", "/invites/multiuse/{invite_id:int}", onInvite(doRevokeMultiuseInvite)),
  route("POST", "/invites/{invite_id:int}/resend", onInvite(doResendInvite)),
];
