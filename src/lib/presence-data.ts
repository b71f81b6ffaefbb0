/**
 * The presence data a user may read (POST /users/me/presence response, /register
 * `presences`): rows of active human users sharing presence, filtered to users the
 * viewer can access, in the modern or legacy format of spec 2.4.
 */
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { listRealmPresence } from "../db/queries/presence.js";
import { toLegacyPresence, toModernPresence, type LegacyPresence, type ModernPresence } from "../api-records/presence.js";
import { apiEmail } from "./users.js";
import { presenceVisibleUserIds } from "./presence.js";

export interface PresenceQuery {
  /** Rows changed after this sequence value only (incremental poll). */
  lastUpdateId?: number;
  /** History window of a full fetch, in days; ignored when lastUpdateId > 0. */
  historyLimitDays: number;
  /** Modern entries keyed by user id (else legacy keyed by API email). */
  modern: boolean;
  nowSeconds: number;
  realmHost: string;
}

export interface PresenceData {
  presences: Record<string, ModernPresence | LegacyPresence>;
  presence_last_update_id: number;
}

export async function getPresenceData(db: Queryable, realm: Realm, viewer: User, q: PresenceQuery): Promise<PresenceData> {
  if (realm.presence_disabled) return { presences: {}, presence_last_update_id: -1 };
  const fallbackId = q.lastUpdateId ?? -1;
  const useWindow = q.lastUpdateId === undefined || q.lastUpdateId <= 0;
  if (useWindow && q.historyLimitDays <= 0) return { presences: {}, presence_last_update_id: fallbackId };
  const visible = await presenceVisibleUserIds(db, realm, viewer);
  const rows = await listRealmPresence(db, realm.id, {
    sinceUpdateId: q.lastUpdateId,
    connectedSince: useWindow ? q.nowSeconds - q.historyLimitDays * 86_400 : undefined,
    userIds: visible === null ? undefined : [...visible],
  });
  const presences: PresenceData["presences"] = {};
  let maxId = fallbackId;
  for (const row of rows) {
    if (row.last_update_id > maxId) maxId = row.last_update_id;
    if (q.modern) presences[String(row.user_id)] = toModernPresence(row);
    else presences[apiEmail({ ...row, id: row.user_id, is_bot: 0 }, q.realmHost)] = toLegacyPresence(row, q.nowSeconds);
  }
  return { presences, presence_last_update_id: maxId };
}
