/**
 * Why a group cannot be deactivated (upstream access_user_group_for_deactivation): it
 * is a subgroup of an active named group, or it (or an anonymous group containing it)
 * is the value of a permission setting of a channel, a group or the organization.
 */
import type { Queryable } from "../db/tx.js";
import type { Realm } from "../db/schema.js";
import { channelsWithSettingIn, directSupergroups, groupsWithSettingIn } from "../db/queries/user-groups.js";
import { REALM_GROUP_SETTING_DEFAULTS } from "./system-groups.js";
import { GROUP_PERMISSION_SETTINGS, settingColumn } from "./user-groups.js";

/** Channel permission settings, by API name, in upstream's order. */
const CHANNEL_SETTINGS = ["can_administer_channel_group", "can_remove_subscribers_group", "can_send_message_group"] as const;

/** The realm's group-valued settings: column → API name (upstream drops "_group" from two). */
const REALM_SETTINGS = Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((column) => {
  const name = column.replace(/_id$/, "");
  return { column: column as keyof typeof REALM_GROUP_SETTING_DEFAULTS, name: name.endsWith("_groups_group") ? name.replace(/_group$/, "") : name };
});

export type Objection =
  | { type: "subgroup"; supergroup_ids: number[] }
  | { type: "channel"; channel_id: number; settings: string[] }
  | { type: "user_group"; group_id: number; settings: string[] }
  | { type: "realm"; settings: string[] };

export async function groupInUseObjections(db: Queryable, realm: Realm, groupId: number): Promise<Objection[]> {
  const out: Objection[] = [];
  const supergroups = await directSupergroups(db, realm.id, groupId);
  const named = supergroups.filter((g) => g.named).map((g) => g.id);
  if (named.length > 0) out.push({ type: "subgroup", supergroup_ids: named });
  const using = new Set([groupId, ...supergroups.filter((g) => !g.named).map((g) => g.id)]);
  for (const channel of await channelsWithSettingIn(db, realm.id, [...using])) {
    const settings = CHANNEL_SETTINGS.filter((s) => using.has(channel[`${s}_id`] ?? -1));
    out.push({ type: "channel", channel_id: channel.id, settings });
  }
  for (const group of await groupsWithSettingIn(db, realm.id, [...using])) {
    const settings = GROUP_PERMISSION_SETTINGS.filter((s) => using.has(group[settingColumn(s)] ?? -1));
    out.push({ type: "user_group", group_id: group.id, settings: [...settings] });
  }
  const realmSettings = REALM_SETTINGS.filter((s) => using.has(realm[s.column] ?? -1))
    .map((s) => s.name)
    .sort();
  if (realmSettings.length > 0) out.push({ type: "realm", settings: realmSettings });
  return out;
}
