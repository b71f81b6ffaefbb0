/**
 * Changing organization settings (PATCH /realm): the realm row and any group-valued
 * settings in one transaction, then `realm` events to every active user.
 */
import type { AppContext } from "../context.js";
import type { Realm } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import type { ChatEvent } from "../events/types.js";
import { activeUserIds } from "../db/queries/users.js";
import { systemGroupIds } from "../db/queries/user-groups.js";
import { REALM_SETTINGS, type StoredValue } from "../lib/realm-settings.js";
import { REALM_GROUP_SETTINGS } from "../lib/realm-group-settings.js";
import { changeGroupSettingValue, type GroupSettingChange } from "./user-groups.js";

export interface RealmSettingChange {
  name: string;
  stored: StoredValue;
}

export interface RealmGroupSettingChange {
  name: string;
  change: GroupSettingChange;
}

/**
 * Applies checked changes, the plain settings first and then the group-valued ones in
 * upstream's order; unchanged values are skipped. Returns name → API value, with
 * "updated" for text settings as upstream answers.
 */
export async function doUpdateRealmSettings(
  ctx: AppContext,
  realm: Realm,
  changes: readonly RealmSettingChange[],
  groupChanges: readonly RealmGroupSettingChange[] = [],
): Promise<Record<string, unknown>> {
  const changed = changes.filter((c) => realm[REALM_SETTINGS[c.name].column] !== c.stored);
  if (changed.length === 0 && groupChanges.length === 0) return {};
  const data: Record<string, unknown> = {};
  await withTransaction(ctx.db, async (tx) => {
    const recipients = await activeUserIds(tx, realm.id);
    const send = (event: ChatEvent) => sendEventOnCommit(tx, ctx, realm.id, event, recipients);
    if (changed.length > 0) {
      const set: Record<string, StoredValue> = {};
      for (const c of changed) set[REALM_SETTINGS[c.name].column] = c.stored;
      await tx.updateTable("realms").set(set).where("id", "=", realm.id).execute();
    }
    for (const c of changed) {
      const setting = REALM_SETTINGS[c.name];
      const value = setting.toApi(c.stored);
      data[c.name] = typeof value === "string" ? "updated" : value;
      send(setting.event === "update_dict" ? { type: "realm", op: "update_dict", property: "default", data: { [c.name]: value } } : { type: "realm", op: "update", property: c.name, value });
      for (const [property, derived] of Object.entries(setting.derived?.(c.stored) ?? {})) send({ type: "realm", op: "update", property, value: derived });
    }
    Object.assign(data, await applyGroupChanges(tx, ctx, realm, groupChanges, send));
  });
  return data;
}

/** Upstream's loop over REALM_PERMISSION_GROUP_SETTINGS: each change as an `update_dict` event. */
async function applyGroupChanges(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  groupChanges: readonly RealmGroupSettingChange[],
  send: (event: ChatEvent) => void,
): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {};
  if (groupChanges.length === 0) return data;
  const nobodyId = (await systemGroupIds(tx, realm.id)).get("role:nobody")!;
  for (const { name, change } of groupChanges) {
    const { column, rules } = REALM_GROUP_SETTINGS[name];
    const row = await tx.selectFrom("realms").select(column).where("id", "=", realm.id).executeTakeFirstOrThrow();
    const value = await changeGroupSettingValue(tx, ctx, realm, { name, rules, currentId: row[column] as number | null, change, nobodyId }, (id) =>
      tx.updateTable("realms").set({ [column]: id }).where("id", "=", realm.id).execute(),
    );
    if (value === undefined) continue;
    data[name] = value;
    send({ type: "realm", op: "update_dict", property: "default", data: { [name]: value } });
  }
  return data;
}
