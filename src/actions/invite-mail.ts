/** The invitation email: who invited whom to which organization, and the sign-up link. */
import type { AppContext } from "../context.js";
import type { Invite, Realm, User } from "../db/schema.js";
import { inviteLinkUrl } from "../lib/invites.js";
import { realmUrl } from "../lib/realm-host.js";
import { sendMail } from "../mail/send-mail.js";

export async function sendInvitationMail(ctx: AppContext, realm: Realm, referrer: User, invite: Invite): Promise<void> {
  const url = realmUrl(realm.string_id, ctx.config.externalHost);
  const link = inviteLinkUrl(url, invite.link_key!);
  const expiry = invite.expires_at === null ? "This invitation does not expire." : `This invitation expires on ${new Date(invite.expires_at * 1000).toUTCString()}.`;
  const lines = [
    `Hi,`,
    ``,
    `${referrer.full_name} (${referrer.delivery_email}) has invited you to join ${realm.name} (${url}).`,
    ``,
    `To create your account, open this link:`,
    link,
    ``,
    expiry,
  ];
  await sendMail(ctx.config, { to: invite.email, subject: `${referrer.full_name} invited you to join ${realm.name}`, text: `${lines.join("\n")}\n` }, ctx.log);
}
