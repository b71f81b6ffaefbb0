/**
 * The presence data a user may read (POST /users/me/presence response, /register
 * `presences`): rows of active human users sharing presence, filtered to users the
 * viewer can access, in the modern or legacy format of spec 2.4.
 */
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { currentPresenceSequence, listRealmPresence, ownPresenceAndChangesSince, type PresenceRow, type PresenceWithUser } from "../db/queries/presence.js";
import type { AppContext } from "../context.js";
import { toLegacyPresence, toModernPresence, type LegacyPresence, type ModernPresence } from "../api-records/presence.js";
import { accessesEveryUser, apiEmail } from "./users.js";
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
  return presenceDataFor(db, realm, q, () => presenceVisibleUserIds(db, realm, viewer));
}

/** getPresenceData with the viewer's visible users (null: everyone) asked for only when rows are read. */
async function presenceDataFor(db: Queryable, realm: Realm, q: PresenceQuery, visibleUsers: () => Promise<Set<number> | null>): Promise<PresenceData> {
  if (realm.presence_disabled) return { presences: {}, presence_last_update_id: -1 };
  const fallbackId = q.lastUpdateId ?? -1;
  const useWindow = q.lastUpdateId === undefined || q.lastUpdateId <= 0;
  if (useWindow && q.historyLimitDays <= 0) return { presences: {}, presence_last_update_id: fallbackId };
  const visible = await visibleUsers();
  const rows = await listRealmPresence(db, realm.id, {
    sinceUpdateId: q.lastUpdateId,
    connectedSince: useWindow ? q.nowSeconds - q.historyLimitDays * 86_400 : undefined,
    userIds: visible === null ? undefined : [...visible],
  });
  return presenceDataOf(rows, q, fallbackId);
}

/**
 * The answer to a presence poll. A full fetch in the modern format by a viewer who may see
 * everyone comes serialized (`"presences":…,"presence_last_update_id":…`) from the presence
 * cache, valid while the realm's presence sequence has not moved; any other poll (legacy
 * format, incremental, a viewer with limited access) is read as getPresenceData does.
 */
export async function presenceForPoll(ctx: AppContext, realm: Realm, viewer: User, q: PresenceQuery): Promise<string | PresenceData> {
  const fallbackId = q.lastUpdateId ?? -1;
  if (!q.modern || fallbackId > 0 || realm.presence_disabled || q.historyLimitDays <= 0) return getPresenceData(ctx.db, realm, viewer, q);
  const visible = await presenceVisibleUserIds(ctx.db, realm, viewer);
  if (visible !== null) return presenceDataFor(ctx.db, realm, q, async () => visible);
  const windowStart = q.nowSeconds - q.historyLimitDays * 86_400;
  // Read before the rows: a report landing in between only makes the entry look older.
  const sequence = await currentPresenceSequence(ctx.db, realm.id);
  return ctx.caches.presence.fields({ realmId: realm.id, historyLimitDays: q.historyLimitDays, fallbackId }, sequence, windowStart, async () => {
    const rows = await listRealmPresence(ctx.db, realm.id, { connectedSince: windowStart });
    const data = presenceDataOf(rows, q, fallbackId);
    let oldestConnected = Infinity;
    for (const row of rows) oldestConnected = Math.min(oldestConnected, row.last_connected_time ?? row.date_joined);
    const json = `"presences":${JSON.stringify(data.presences)},"presence_last_update_id":${data.presence_last_update_id}`;
    return { oldestConnected, json };
  });
}

/**
 * The hot poll, an incremental one (last_update_id > 0) by a viewer who sees everyone:
 * the answer and the caller's stored row (for the write throttle) in one statement. The
 * answer holds only while the caller's report writes nothing (it would change their row);
 * undefined for any other poll.
 */
export async function readIncrementalPoll(db: Queryable, realm: Realm, viewer: User, q: PresenceQuery): Promise<{ own: PresenceRow | undefined; data: PresenceData } | undefined> {
  if (!q.modern || q.lastUpdateId === undefined || q.lastUpdateId <= 0 || realm.presence_disabled || !accessesEveryUser(viewer)) return undefined;
  const { own, changed } = await ownPresenceAndChangesSince(db, realm.id, viewer.id, q.lastUpdateId);
  return { own, data: presenceDataOf(changed, q, q.lastUpdateId) };
}

function presenceDataOf(rows: readonly PresenceWithUser[], q: PresenceQuery, fallbackId: number): PresenceData {
  const presences: PresenceData["presences"] = {};
  let maxId = fallbackId;
  for (const row of rows) {
    if (row.last_update_id > maxId) maxId = row.last_update_id;
    if (q.modern) presences[String(row.user_id)] = toModernPresence(row);
    else presences[apiEmail({ ...row, id: row.user_id, is_bot: 0 }, q.realmHost)] = toLegacyPresence(row, q.nowSeconds);
  }
  return { presences, presence_last_update_id: maxId };
}
