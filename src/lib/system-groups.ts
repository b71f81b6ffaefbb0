/**
 * System user groups. Each role has one group; nesting by subgroups gives
 * owners ⊂ administrators ⊂ moderators ⊂ fullmembers ⊂ members ⊂ everyone ⊂ internet.
 * A user is a direct member of the group for their role (members also of fullmembers).
 */
import { Role } from "./roles.js";

export const SYSTEM_GROUPS = [
  { name: "role:owners", description: "Owners of this organization" },
  { name: "role:administrators", description: "Administrators of this organization, including owners" },
  { name: "role:moderators", description: "Moderators of this organization, including administrators" },
  { name: "role:fullmembers", description: "Members of this organization, not including new accounts and guests" },
  { name: "role:members", description: "Members of this organization, not including guests" },
  { name: "role:everyone", description: "Everyone in this organization, including guests" },
  { name: "role:internet", description: "Everyone on the internet" },
  { name: "role:nobody", description: "Nobody" },
] as const;

export type SystemGroupName = (typeof SYSTEM_GROUPS)[number]["name"];

/** [supergroup, subgroup] pairs. */
export const SYSTEM_GROUP_NESTING: ReadonlyArray<[SystemGroupName, SystemGroupName]> = [
  ["role:administrators", "role:owners"],
  ["role:moderators", "role:administrators"],
  ["role:fullmembers", "role:moderators"],
  ["role:members", "role:fullmembers"],
  ["role:everyone", "role:members"],
  ["role:internet", "role:everyone"],
];

/** The system groups a user of this role is a direct member of. */
export function directSystemGroupsForRole(role: number): SystemGroupName[] {
  switch (role) {
    case Role.OWNER:
      return ["role:owners"];
    case Role.ADMINISTRATOR:
      return ["role:administrators"];
    case Role.MODERATOR:
      return ["role:moderators"];
    case Role.MEMBER:
      return ["role:members", "role:fullmembers"];
    default:
      return ["role:everyone"];
  }
}

/** Realm permission settings and their default system group (upstream defaults). */
export const REALM_GROUP_SETTING_DEFAULTS = {
  can_invite_users_group_id: "role:members",
  can_create_groups_group_id: "role:members",
  can_manage_all_groups_group_id: "role:owners",
  can_add_subscribers_group_id: "role:members",
  can_create_public_channel_group_id: "role:members",
  can_create_private_channel_group_id: "role:members",
  can_create_web_public_channel_group_id: "role:owners",
  can_move_messages_between_channels_group_id: "role:members",
  can_move_messages_between_topics_group_id: "role:everyone",
  can_resolve_topics_group_id: "role:everyone",
  can_delete_own_message_group_id: "role:everyone",
  can_delete_any_message_group_id: "role:administrators",
  can_mention_many_users_group_id: "role:administrators",
  can_access_all_users_group_id: "role:everyone",
  direct_message_permission_group_id: "role:everyone",
  can_add_custom_emoji_group_id: "role:members",
} as const satisfies Record<string, SystemGroupName>;
