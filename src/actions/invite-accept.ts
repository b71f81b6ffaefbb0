/**
 * Accepting an invitation (the sign-up link): creates the account with the invited role,
 * channels and groups, uses up the invitation, and, when the referrer asked for it, has
 * the notification bot tell them. Expired, revoked and used links are refused.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import type { Invite, Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { findChannelsByIds } from "../db/queries/channels.js";
import { findInviteByKey, InviteStatus, markEmailInvitesUsed, setInviteStatus } from "../db/queries/invites.js";
import { activeUserIds, findUserById } from "../db/queries/users.js";
import { sendEventOnCommit } from "../events/send.js";
import { isInviteUsable } from "../lib/invites.js";
import { silentMention } from "../lib/notification-bot.js";
import { checkFullName, checkPasswordStrength, isValidEmail, normalizeEmail } from "../lib/user-validation.js";
import { internalSendMessage } from "./internal-messages.js";
import { bulkAddSubscriptionsInTx } from "./subscriptions.js";
import { doCreateUserInTx } from "./users-create.js";
import { announceInvitesChanged } from "./invites.js";

export const LINK_NOT_USABLE = "This invitation link has expired or has been revoked.";

/** The invitation a link names in this realm, if it can still be used. */
export async function findUsableInvite(ctx: AppContext, realm: Realm, key: string): Promise<Invite | null> {
  const invite = await findInviteByKey(ctx.db, key);
  if (!invite || invite.realm_id !== realm.id || !isInviteUsable(invite, nowSeconds(ctx))) return null;
  return invite;
}

export interface SignupInput {
  /** Only for reusable links; an email invitation's address is fixed. */
  email: string | null;
  fullName: string;
  password: string;
}

/** Adds the new user to the invitation's groups that still exist and are active. */
async function joinGroups(tx: Tx, ctx: AppContext, realm: Realm, user: User, groupIds: readonly number[]): Promise<void> {
  if (groupIds.length === 0) return;
  const groups = await tx
    .selectFrom("user_groups")
    .select("id")
    .where("realm_id", "=", realm.id)
    .where("id", "in", [...groupIds])
    .where("deactivated", "=", 0)
    .where("is_system_group", "=", 0)
    .where("name", "is not", null)
    .execute();
  if (groups.length === 0) return;
  await tx.insertInto("user_group_members").values(groups.map((g) => ({ realm_id: realm.id, group_id: g.id, user_id: user.id }))).execute();
  const audience = await activeUserIds(tx, realm.id);
  for (const g of groups) sendEventOnCommit(tx, ctx, realm.id, { type: "user_group", op: "add_members", group_id: g.id, user_ids: [user.id] }, audience);
}

export async function doAcceptInvite(ctx: AppContext, realm: Realm, key: string, input: SignupInput): Promise<User> {
  const fullName = checkFullName(input.fullName);
  checkPasswordStrength(input.password);
  const { user, invite } = await withTransaction(ctx.db, async (tx) => {
    const invite = await findInviteByKey(tx, key);
    if (!invite || invite.realm_id !== realm.id || !isInviteUsable(invite, nowSeconds(ctx))) throw new ApiError(LINK_NOT_USABLE);
    const email = invite.is_multiuse ? normalizeEmail(input.email ?? "") : invite.email;
    if (!isValidEmail(email)) throw new ApiError("Enter a valid email address.");
    const user = await doCreateUserInTx(tx, ctx, realm, {
      email,
      fullName,
      password: input.password,
      role: invite.invited_as,
      defaultChannels: invite.include_realm_default_subscriptions === 1,
    });
    const channels = (await findChannelsByIds(tx, realm.id, JSON.parse(invite.channel_ids_json) as number[])).filter((c) => !c.deactivated);
    await bulkAddSubscriptionsInTx(tx, ctx, realm, channels, [user]);
    await joinGroups(tx, ctx, realm, user, JSON.parse(invite.group_ids_json) as number[]);
    if (!invite.is_multiuse) await setInviteStatus(tx, realm.id, invite.id, InviteStatus.USED);
    await markEmailInvitesUsed(tx, realm.id, normalizeEmail(email));
    await announceInvitesChanged(tx, ctx, realm.id, invite.referrer_id);
    return { user, invite };
  });
  const referrer = await findUserById(ctx.db, realm.id, invite.referrer_id);
  if (invite.notify_referrer_on_join && referrer?.is_active) {
    await internalSendMessage(ctx, realm, { to: { users: [referrer] }, content: `${silentMention(user)} accepted your invitation to join Parley!` });
  }
  // Parley has no welcome bot: the invitation's custom welcome text comes from the notification bot.
  if (invite.welcome_message_custom_text) {
    await internalSendMessage(ctx, realm, { to: { users: [user] }, content: invite.welcome_message_custom_text });
  }
  return user;
}
