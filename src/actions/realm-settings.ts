/** Changing organization settings (PATCH /realm): one realm row update, then `realm` events to every active user. */
import type { AppContext } from "../context.js";
import type { Realm } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { activeUserIds } from "../db/queries/users.js";
import { REALM_SETTINGS, type StoredValue } from "../lib/realm-settings.js";

export interface RealmSettingChange {
  name: string;
  stored: StoredValue;
}

/**
 * Applies checked changes (only those that differ from the current values); returns
 * name → API value, with "updated" for text settings as upstream answers.
 */
export async function doUpdateRealmSettings(ctx: AppContext, realm: Realm, changes: readonly RealmSettingChange[]): Promise<Record<string, unknown>> {
  const changed = changes.filter((c) => realm[REALM_SETTINGS[c.name].column] !== c.stored);
  if (changed.length === 0) return {};
  const data: Record<string, unknown> = {};
  await withTransaction(ctx.db, async (tx) => {
    const set: Record<string, StoredValue> = {};
    for (const c of changed) set[REALM_SETTINGS[c.name].column] = c.stored;
    await tx.updateTable("realms").set(set).where("id", "=", realm.id).execute();
    const recipients = await activeUserIds(tx, realm.id);
    for (const c of changed) {
      const setting = REALM_SETTINGS[c.name];
      const value = setting.toApi(c.stored);
      data[c.name] = typeof value === "string" ? "updated" : value;
      const event =
        setting.event === "update_dict"
          ? { type: "realm", op: "update_dict", property: "default", data: { [c.name]: value } }
          : { type: "realm", op: "update", property: c.name, value };
      sendEventOnCommit(tx, ctx, realm.id, event, recipients);
      for (const [property, derived] of Object.entries(setting.derived?.(c.stored) ?? {})) {
        sendEventOnCommit(tx, ctx, realm.id, { type: "realm", op: "update", property, value: derived }, recipients);
      }
    }
  });
  return data;
}
