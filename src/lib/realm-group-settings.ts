/**
 * The realm's group-valued permission settings PATCH /realm can change: API name, realm
 * column, the groups each accepts (upstream Realm.REALM_PERMISSION_GROUP_SETTINGS) and
 * whether only owners may change it. The values are `{new, old?}` group-setting changes.
 */
import type { Realm } from "../db/schema.js";
import type { REALM_GROUP_SETTING_DEFAULTS } from "./system-groups.js";
import type { SystemGroupRules } from "./user-groups.js";

export interface RealmGroupSetting {
  column: keyof typeof REALM_GROUP_SETTING_DEFAULTS & keyof Realm;
  rules: SystemGroupRules;
  ownerOnly?: boolean;
}

/** Upstream's common rules: any group but role:everyone and role:internet. */
const members = (column: RealmGroupSetting["column"], ownerOnly = false): RealmGroupSetting => ({ column, rules: { allowEveryone: false, allowOwners: true }, ownerOnly });
/** Any group but role:internet. */
const anyone = (column: RealmGroupSetting["column"]): RealmGroupSetting => ({ column, rules: { allowEveryone: true, allowOwners: true } });

export const REALM_GROUP_SETTINGS: Record<string, RealmGroupSetting> = {
  can_access_all_users_group: {
    column: "can_access_all_users_group_id",
    rules: { allowEveryone: true, allowOwners: true, allowNobody: false, requireSystemGroup: true, allowedSystemGroups: ["role:everyone", "role:members"] },
  },
  can_add_custom_emoji_group: members("can_add_custom_emoji_group_id"),
  can_add_subscribers_group: members("can_add_subscribers_group_id"),
  can_create_groups: members("can_create_groups_group_id", true),
  can_create_public_channel_group: members("can_create_public_channel_group_id"),
  can_create_private_channel_group: members("can_create_private_channel_group_id"),
  can_create_web_public_channel_group: {
    column: "can_create_web_public_channel_group_id",
    rules: { allowEveryone: false, allowOwners: true, requireSystemGroup: true, allowedSystemGroups: ["role:moderators", "role:administrators", "role:owners", "role:nobody"] },
  },
  can_delete_any_message_group: members("can_delete_any_message_group_id"),
  can_delete_own_message_group: anyone("can_delete_own_message_group_id"),
  can_invite_users_group: members("can_invite_users_group_id", true),
  can_manage_all_groups: { column: "can_manage_all_groups_group_id", rules: { allowEveryone: false, allowOwners: true, allowNobody: false }, ownerOnly: true },
  can_mention_many_users_group: anyone("can_mention_many_users_group_id"),
  can_move_messages_between_channels_group: members("can_move_messages_between_channels_group_id"),
  can_move_messages_between_topics_group: anyone("can_move_messages_between_topics_group_id"),
  can_resolve_topics_group: anyone("can_resolve_topics_group_id"),
  direct_message_permission_group: anyone("direct_message_permission_group_id"),
};
