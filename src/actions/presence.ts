/**
 * Recording presence reports (POST /users/me/presence) with upstream's write throttle,
 * stamping changed rows with the realm's presence sequence, and the "came online"
 * presence event.
 */
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { activeUserIds } from "../db/queries/users.js";
import {
  findPresence,
  insertPresence,
  nextPresenceUpdateId,
  updatePresence,
  type PresenceRow,
} from "../db/queries/presence.js";
import { sendEventOnCommit } from "../events/send.js";
import {
  CAME_ONLINE_AFTER_SECONDS,
  PRESENCE_UPDATE_MIN_FREQ_SECONDS,
  USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS,
  usersWhoCanAccessUser,
  type PresenceStatus,
} from "../lib/presence.js";
import { toLegacyEventPresence, toModernPresence } from "../api-records/presence.js";
import { apiEmail } from "../lib/users.js";
import { realmHost } from "../lib/realm-host.js";

/**
 * Records a report at `now` (UNIX seconds). Writes nothing when the stored times are
 * recent enough (at most one write per user per ~55 s), so frequent polls cost one read
 * (none when the caller read the stored row already: `stored`). Users in invisible mode
 * (presence_enabled off) are not recorded at all. True when it wrote.
 */
export async function doUpdateUserPresence(
  ctx: AppContext,
  realm: Realm,
  user: User,
  status: PresenceStatus,
  now: number,
  stored?: { row: PresenceRow | undefined },
): Promise<boolean> {
  if (!user.presence_enabled) return false;
  const existing = stored ? stored.row : await findPresence(ctx.db, realm.id, user.id);
  const plan = planPresenceUpdate(user.id, existing, status, now);
  if (plan === null) return false;
  await withTransaction(ctx.db, async (tx) => {
    const updateId = await nextPresenceUpdateId(tx, realm.id);
    const row: PresenceRow = { ...plan.row, last_update_id: updateId };
    if (plan.creating) await insertPresence(tx, realm.id, row);
    else {
      const { last_active_time, last_connected_time, last_update_id } = row;
      await updatePresence(tx, realm.id, user.id, { last_active_time, last_connected_time, last_update_id });
    }
    if (realm.presence_disabled || !(plan.creating || plan.cameOnline)) return;
    const activeIds = await activeUserIds(tx, realm.id);
    if (activeIds.length > USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS) return;
    // Recipients: active users of the realm who may access this user (limited guests
    // see only users they share a channel with).
    const recipients = await usersWhoCanAccessUser(tx, realm, user.id, activeIds);
    const times = { ...row, date_joined: user.date_joined };
    sendEventOnCommit(
      tx,
      ctx,
      realm.id,
      {
        type: "presence",
        email: apiEmail(user, realmHost(realm.string_id, ctx.config.externalHost)),
        user_id: user.id,
        server_timestamp: ctx.now() / 1000,
        presence: { website: toLegacyEventPresence(times) },
        internal_data: { modern_presence: { [String(user.id)]: toModernPresence(times) } },
      },
      recipients,
    );
  });
  return true;
}

interface PresencePlan {
  creating: boolean;
  cameOnline: boolean;
  row: Omit<PresenceRow, "last_update_id">;
}

/** What a report changes; null when nothing needs writing (the throttle). */
export function planPresenceUpdate(userId: number, existing: PresenceRow | undefined, status: PresenceStatus, now: number): PresencePlan | null {
  if (!existing) {
    return {
      creating: true,
      cameOnline: status === "active",
      row: { user_id: userId, last_connected_time: now, last_active_time: status === "active" ? now : null },
    };
  }
  const sinceActive = existing.last_active_time === null ? 86_400 : now - existing.last_active_time;
  const sinceConnected = existing.last_connected_time === null ? 86_400 : now - existing.last_connected_time;
  const cameOnline = status === "active" && sinceActive > CAME_ONLINE_AFTER_SECONDS;
  let lastConnected = existing.last_connected_time;
  let lastActive = existing.last_active_time;
  let changed = false;
  if (sinceConnected > PRESENCE_UPDATE_MIN_FREQ_SECONDS) {
    lastConnected = now;
    changed = true;
  }
  if (status === "active" && sinceActive > PRESENCE_UPDATE_MIN_FREQ_SECONDS) {
    lastActive = now;
    if (lastConnected === null || now > lastConnected) lastConnected = now;
    changed = true;
  }
  if (!changed) return null;
  return { creating: false, cameOnline, row: { user_id: existing.user_id, last_connected_time: lastConnected, last_active_time: lastActive } };
}
