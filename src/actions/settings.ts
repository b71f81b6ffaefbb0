/**
 * Changing one's own settings (upstream json_change_settings → do_change_full_name,
 * do_change_user_setting): full name, the stored personal settings and the time zone,
 * in upstream's order, each change announced after commit.
 */
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { deleteAllDraftsOf } from "../db/queries/drafts.js";
import { findUserById, updateUserRow } from "../db/queries/users.js";
import { sendEventOnCommit } from "../events/send.js";
import { realmHost } from "../lib/realm-host.js";
import { EmailVisibility } from "../lib/roles.js";
import { LANGUAGE_NAMES, storedSettingValue, type StoredSetting } from "../lib/settings.js";
import { checkFullName } from "../lib/user-validation.js";
import { apiEmail, canSeeDeliveryEmail, userIdsWhoCanAccess, usersWhoCanAccess } from "../lib/users.js";

export interface SettingsChange {
  fullName?: string;
  defaultLanguage?: string;
  enableDraftsSynchronization?: boolean;
  presenceEnabled?: boolean;
  emailAddressVisibility?: number;
  timezone?: string;
}

const realmUserUpdate = (person: Record<string, unknown>) => ({ type: "realm_user", op: "update", person });

/** Applies the changes (values already validated by the view); unchanged values send nothing. */
export async function doChangeSettings(ctx: AppContext, realm: Realm, actor: User, input: SettingsChange): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    let user = (await findUserById(tx, realm.id, actor.id)) ?? actor;

    if (input.fullName !== undefined && input.fullName !== user.full_name) {
      const name = checkFullName(input.fullName);
      if (name !== user.full_name) {
        await updateUserRow(tx, realm.id, user.id, { full_name: name });
        user = { ...user, full_name: name };
        // Every user who can access this user learns the new name.
        sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: user.id, full_name: name }), await userIdsWhoCanAccess(tx, realm.id, user));
      }
    }

    // Upstream property_types order: display settings, notification settings, then the rest.
    const stored: Array<[StoredSetting, unknown]> = [
      ["default_language", input.defaultLanguage],
      ["enable_drafts_synchronization", input.enableDraftsSynchronization],
      ["presence_enabled", input.presenceEnabled],
      ["email_address_visibility", input.emailAddressVisibility],
    ];
    for (const [name, value] of stored) {
      if (value === undefined || value === storedSettingValue(user, name)) continue;
      const before = user;
      const column = typeof value === "boolean" ? (value ? 1 : 0) : value;
      await updateUserRow(tx, realm.id, user.id, { [name]: column });
      user = { ...user, [name]: column };
      const event: Record<string, unknown> = { type: "user_settings", op: "update", property: name, value };
      if (name === "default_language") event.language_name = LANGUAGE_NAMES[value as string];
      // Personal settings concern only the user's own clients.
      sendEventOnCommit(tx, ctx, realm.id, event as { type: string }, [user.id]);
      if (name === "email_address_visibility") await announceEmailVisibility(tx, ctx, realm, before, user);
      // Turning synchronization off forgets the stored drafts, without draft events (as upstream).
      if (name === "enable_drafts_synchronization" && value === false) await deleteAllDraftsOf(tx, realm.id, user.id);
    }

    if (input.timezone !== undefined && input.timezone !== user.timezone) {
      await updateUserRow(tx, realm.id, user.id, { timezone: input.timezone });
      user = { ...user, timezone: input.timezone };
      sendEventOnCommit(tx, ctx, realm.id, { type: "user_settings", op: "update", property: "timezone", value: input.timezone }, [user.id]);
      // Time zones are part of every user record: everyone who can access this user learns it.
      const email = apiEmail(user, realmHost(realm.string_id, ctx.config.externalHost));
      sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ email, user_id: user.id, timezone: input.timezone }), await userIdsWhoCanAccess(tx, realm.id, user));
    }
  });
}

/**
 * After an email-visibility change: when the API email switches between the real and the
 * dummy address, every active user gets the new one; users who gain access to the real
 * address get it, users who lose access get null (upstream do_change_user_setting).
 */
async function announceEmailVisibility(tx: Tx, ctx: AppContext, realm: Realm, before: User, after: User): Promise<void> {
  const users = await usersWhoCanAccess(tx, realm.id, after);
  if (before.email_address_visibility === EmailVisibility.EVERYONE || after.email_address_visibility === EmailVisibility.EVERYONE) {
    const email = apiEmail(after, realmHost(realm.string_id, ctx.config.externalHost));
    sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: after.id, new_email: email }), users.map((u) => u.id));
  }
  const gaining = users.filter((u) => !canSeeDeliveryEmail(u, before) && canSeeDeliveryEmail(u, after)).map((u) => u.id);
  const losing = users.filter((u) => canSeeDeliveryEmail(u, before) && !canSeeDeliveryEmail(u, after)).map((u) => u.id);
  if (gaining.length > 0) sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: after.id, delivery_email: after.delivery_email }), gaining);
  if (losing.length > 0) sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: after.id, delivery_email: null }), losing);
}
