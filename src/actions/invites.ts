/**
 * Invitations: email invitations (each with its own sign-up link, mailed to the invitee)
 * and reusable links. Every change tells the administrators and the invitation's creator
 * with `invites_changed` (upstream notify_invites_changed); mail goes out after commit.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import type { Channel, Invite, Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import {
  activeAdminIds,
  countInviteSendsSince,
  findInvite,
  insertInvites,
  InviteStatus,
  recordInviteSends,
  setInviteStatus,
  usersWithEmails,
} from "../db/queries/invites.js";
import { sendEventOnCommit } from "../events/send.js";
import {
  ALREADY_REVOKED,
  checkInviteRolePermission,
  DAILY_LIMIT,
  InvitationFailedError,
  inviteLinkUrl,
  newLinkKey,
  NO_SUCH_INVITATION,
  NOBODY_INVITED,
  SOME_ALREADY_USING,
  SOME_INVALID,
  type InviteError,
} from "../lib/invites.js";
import { realmUrl } from "../lib/realm-host.js";
import { Role } from "../lib/roles.js";
import { isValidEmail } from "../lib/user-validation.js";
import { sendInvitationMail } from "./invite-mail.js";

export interface InviteOptions {
  channels: readonly Channel[];
  groupIds: readonly number[];
  includeRealmDefaultSubscriptions: boolean;
  inviteAs: number;
  /** null: never expires. */
  expiresInMinutes: number | null;
  notifyReferrerOnJoin: boolean;
  welcomeMessageCustomText: string | null;
}

function notifyInvitesChanged(tx: Tx, ctx: AppContext, realmId: number, adminIds: readonly number[], referrerId: number): void {
  const audience = [...new Set([...adminIds, referrerId])];
  sendEventOnCommit(tx, ctx, realmId, { type: "invites_changed" }, audience);
}

/** invites_changed to the realm's administrators and the invitation's creator. */
export async function announceInvitesChanged(tx: Tx, ctx: AppContext, realmId: number, referrerId: number): Promise<void> {
  notifyInvitesChanged(tx, ctx, realmId, await activeAdminIds(tx, realmId, Role.ADMINISTRATOR), referrerId);
}

async function checkDailyLimit(tx: Tx, ctx: AppContext, realmId: number, count: number): Promise<void> {
  const sent = await countInviteSendsSince(tx, realmId, nowSeconds(ctx) - 86400);
  if (sent + count > ctx.config.invitesPerDay) {
    throw new InvitationFailedError(DAILY_LIMIT, [], { sentInvitations: false, dailyLimitReached: true });
  }
}

function inviteRow(realm: Realm, actor: User, opts: InviteOptions, now: number, email: string, multiuse: boolean) {
  return {
    realm_id: realm.id,
    email,
    referrer_id: actor.id,
    invited_as: opts.inviteAs,
    invited_at: now,
    expires_at: opts.expiresInMinutes === null ? null : now + opts.expiresInMinutes * 60,
    status: InviteStatus.PENDING,
    notify_referrer_on_join: opts.notifyReferrerOnJoin ? 1 : 0,
    include_realm_default_subscriptions: opts.includeRealmDefaultSubscriptions ? 1 : 0,
    welcome_message_custom_text: opts.welcomeMessageCustomText,
    channel_ids_json: JSON.stringify(opts.channels.map((c) => c.id)),
    group_ids_json: JSON.stringify([...opts.groupIds]),
    link_key: newLinkKey(),
    is_multiuse: multiuse ? 1 : 0,
  };
}

/**
 * Invites every address: invalid addresses fail the whole request (nothing sent);
 * addresses that already have accounts are skipped and reported with INVITATION_FAILED
 * after the others' invitations were created and mailed.
 */
export async function doInviteUsers(ctx: AppContext, realm: Realm, actor: User, emails: readonly string[], opts: InviteOptions): Promise<void> {
  const { invites, skipped } = await withTransaction(ctx.db, async (tx) => {
    await checkDailyLimit(tx, ctx, realm.id, emails.length);
    const candidates = emails.filter((e) => e !== "");
    const invalid: InviteError[] = candidates.filter((e) => !isValidEmail(e)).map((e) => [e, "Invalid address.", false]);
    const good = candidates.filter((e) => isValidEmail(e));
    const existing = new Map((await usersWithEmails(tx, realm.id, good)).map((u) => [u.delivery_email, u]));
    const skipped: InviteError[] = [];
    for (const e of good) {
      const user = existing.get(e.toLowerCase());
      if (user) skipped.push(user.is_active ? [e, "Already has an account.", false] : [e, "Account has been deactivated.", true]);
    }
    if (invalid.length > 0) throw new InvitationFailedError(SOME_INVALID, [...invalid, ...skipped], { sentInvitations: false });
    if (skipped.length > 0 && skipped.length === emails.length) throw new InvitationFailedError(NOBODY_INVITED, skipped, { sentInvitations: false });
    const skippedSet = new Set(skipped.map(([e]) => e));
    const now = nowSeconds(ctx);
    const invites = await insertInvites(tx, good.filter((e) => !skippedSet.has(e)).map((e) => inviteRow(realm, actor, opts, now, e, false)));
    await recordInviteSends(tx, realm.id, invites.map((i) => i.id), now);
    await announceInvitesChanged(tx, ctx, realm.id, actor.id);
    return { invites, skipped };
  });
  for (const invite of invites) await sendInvitationMail(ctx, realm, actor, invite);
  if (skipped.length > 0) throw new InvitationFailedError(SOME_ALREADY_USING, skipped, { sentInvitations: true });
}

/** Creates a reusable invitation link and returns its URL. */
export async function doCreateMultiuseInvite(ctx: AppContext, realm: Realm, actor: User, opts: InviteOptions): Promise<string> {
  const invite = await withTransaction(ctx.db, async (tx) => {
    const [row] = await insertInvites(tx, [inviteRow(realm, actor, opts, nowSeconds(ctx), "", true)]);
    await announceInvitesChanged(tx, ctx, realm.id, actor.id);
    return row!;
  });
  return inviteLinkUrl(realmUrl(realm.string_id, ctx.config.externalHost), invite.link_key!);
}

/**
 * The invitation `actor` may manage: their own, or (administrators) anyone's, owners'
 * invitations only by owners. Email invitations must still be pending.
 */
async function accessInviteForUpdate(tx: Tx, realm: Realm, actor: User, id: number, multiuse: boolean): Promise<Invite> {
  const invite = await findInvite(tx, realm.id, id, multiuse);
  if (!invite || (!multiuse && invite.status !== InviteStatus.PENDING)) throw new ApiError(NO_SUCH_INVITATION);
  if (invite.referrer_id !== actor.id) checkInviteRolePermission(invite.invited_as, actor, true);
  return invite;
}

/** DELETE /invites/{id}: the link stops working. */
export async function doRevokeInvite(ctx: AppContext, realm: Realm, actor: User, id: number): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const invite = await accessInviteForUpdate(tx, realm, actor, id, false);
    await setInviteStatus(tx, realm.id, invite.id, InviteStatus.REVOKED);
    await announceInvitesChanged(tx, ctx, realm.id, invite.referrer_id);
  });
}

/** DELETE /invites/multiuse/{id}. */
export async function doRevokeMultiuseInvite(ctx: AppContext, realm: Realm, actor: User, id: number): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const invite = await accessInviteForUpdate(tx, realm, actor, id, true);
    if (invite.status === InviteStatus.REVOKED) throw new ApiError(ALREADY_REVOKED);
    await setInviteStatus(tx, realm.id, invite.id, InviteStatus.REVOKED);
    await announceInvitesChanged(tx, ctx, realm.id, invite.referrer_id);
  });
}

/** POST /invites/{id}/resend: mails the same link again (counts against the daily limit). */
export async function doResendInvite(ctx: AppContext, realm: Realm, actor: User, id: number): Promise<void> {
  const { invite, referrer } = await withTransaction(ctx.db, async (tx) => {
    const invite = await accessInviteForUpdate(tx, realm, actor, id, false);
    await checkDailyLimit(tx, ctx, realm.id, 1);
    await recordInviteSends(tx, realm.id, [invite.id], nowSeconds(ctx));
    const referrer = await tx.selectFrom("users").selectAll().where("realm_id", "=", realm.id).where("id", "=", invite.referrer_id).executeTakeFirstOrThrow();
    return { invite, referrer };
  });
  await sendInvitationMail(ctx, realm, referrer, invite);
}
