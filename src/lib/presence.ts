/**
 * Presence rules (upstream zerver/actions/presence.py, zerver/lib/presence.py):
 * intervals, the write throttle, "came online", and whose presence a user may see.
 */
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { accessibleUserIds } from "./users.js";
import { userIdsSharingChannelSubscriptions } from "../db/queries/user-access.js";
import { groupMemberIdsRecursive } from "../db/queries/user-groups.js";

/** Clients report presence about this often (register: server_presence_ping_interval_seconds). */
export const PRESENCE_PING_INTERVAL_SECONDS = 60;
/** A user with no report for this long is offline (server_presence_offline_threshold_seconds). */
export const PRESENCE_OFFLINE_THRESHOLD_SECONDS = 200;
/** A stored time is rewritten at most this often: reports within it write nothing. */
export const PRESENCE_UPDATE_MIN_FREQ_SECONDS = 55;
/** Legacy poll format: activity at most this old is `active`. */
export const LEGACY_ACTIVE_WINDOW_SECONDS = 120;
/** Legacy event format: activity within this of the last connection is `active`. */
export const LEGACY_EVENT_ACTIVITY_OFFSET_SECONDS = 70;
/** Above this many active users, "came online" events are not sent (quadratic fan-out). */
export const USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS = 100;
/** Default history window of a full fetch (spec 8). */
export const PRESENCE_HISTORY_LIMIT_DAYS_DEFAULT = 14;
/** Inactivity after which an `active` report counts as coming online (event sent at once). */
export const CAME_ONLINE_AFTER_SECONDS = PRESENCE_OFFLINE_THRESHOLD_SECONDS - PRESENCE_PING_INTERVAL_SECONDS - 10;

export type PresenceStatus = "active" | "idle";

/**
 * Ids of users whose presence `viewer` may see, or null for "everyone in the realm":
 * the users the viewer may access (src/lib/users.ts accessibleUserIds, the one rule).
 */
export async function presenceVisibleUserIds(db: Queryable, _realm: Realm, viewer: User): Promise<Set<number> | null> {
  return accessibleUserIds(db, viewer);
}

/**
 * Which of `candidateIds` may see `subject`: members of can_access_all_users_group,
 * plus users sharing a channel with the subject, plus the subject.
 */
export async function usersWhoCanAccessUser(
  db: Queryable,
  realm: Realm,
  subjectId: number,
  candidateIds: readonly number[],
): Promise<number[]> {
  const groupId = realm.can_access_all_users_group_id;
  if (groupId === null) return [...candidateIds];
  const everyone = (await groupMemberIdsRecursive(db, realm.id, [groupId])).get(groupId) ?? new Set<number>();
  if (candidateIds.every((id) => everyone.has(id))) return [...candidateIds];
  const sharing = new Set(await userIdsSharingChannelSubscriptions(db, realm.id, subjectId));
  return candidateIds.filter((id) => id === subjectId || everyone.has(id) || sharing.has(id));
}
