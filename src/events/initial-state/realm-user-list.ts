/**
 * realm_users and realm_non_active_users for a viewer who may access everyone, from the
 * cached, serialized user list that GET /users also serves (src/caches/user-lists.ts:
 * per realm, viewer role and client_hashavatar, with profile data). The list is split
 * once per cached entry into the active and the other users; the viewer's own record
 * (they always see their real email) is rendered per request and spliced in.
 */
import { toApiUser } from "../../api-records/user.js";
import type { SerializedUserList } from "../../caches/user-lists.js";
import { listRealmUsers } from "../../db/queries/users.js";
import { profileValuesForUsers } from "../../db/queries/custom-profile-fields.js";
import { profileDataByUser } from "../../lib/custom-profile-fields.js";
import { isNotificationBot } from "../../lib/notification-bot.js";
import { profileFieldsOf } from "./custom-profile-fields.js";
import { RawJson } from "./raw-json.js";
import type { StateContext } from "./types.js";

interface SplitList {
  active: Buffer;
  inactive: Buffer;
  /** user id → [start, end) of an active user's record in `active`. */
  activeAt: Map<number, { start: number; end: number }>;
}

const splits = new WeakMap<SerializedUserList, SplitList>();

export async function cachedRealmUserLists(sc: StateContext): Promise<{ realm_users: RawJson; realm_non_active_users: RawJson }> {
  const { ctx, realm, user } = sc;
  const key = { realmId: realm.id, viewerRole: user.role, clientHashAvatar: sc.opts.clientHashavatar, includeProfile: true };
  const list = await ctx.caches.userLists.get(key, () => renderForRole(sc));
  const split = splitOf(list);
  const inactive = new RawJson([split.inactive]);
  const at = split.activeAt.get(user.id);
  const ownEntry = list.records.get(user.id);
  if (at === undefined || ownEntry === undefined) return { realm_users: new RawJson([split.active]), realm_non_active_users: inactive };
  const profileData = ownEntry.record.profile_data as Record<string, never> | undefined;
  const own = Buffer.from(JSON.stringify(toApiUser(user, { requester: user, realmHost: sc.host, clientHashAvatar: sc.opts.clientHashavatar, profileData, shape: "list" })));
  // Usually the same bytes (the viewer's role already shows their email): no splice then.
  const parts = own.equals(split.active.subarray(at.start, at.end)) ? [split.active] : [split.active.subarray(0, at.start), own, split.active.subarray(at.end)];
  return { realm_users: new RawJson(parts), realm_non_active_users: inactive };
}

/**
 * Every user of the realm but the notification bot, as a viewer of this role who is none
 * of them sees them: the same records GET /users?include_custom_profile_fields=true gives.
 */
async function renderForRole(sc: StateContext): Promise<Array<Record<string, unknown>>> {
  const { ctx, realm, user } = sc;
  const users = (await listRealmUsers(ctx.db, realm.id)).filter((u) => !isNotificationBot(realm, u));
  const fields = await profileFieldsOf(sc);
  const profiles = profileDataByUser(await profileValuesForUsers(ctx.db, realm.id), new Map(fields.map((f) => [f.id, f.field_type])));
  const requester = { id: -1, role: user.role };
  return users.map((u) =>
    toApiUser(u, { requester, realmHost: sc.host, clientHashAvatar: sc.opts.clientHashavatar, profileData: u.is_bot ? undefined : (profiles.get(u.id) ?? {}), shape: "list" }),
  );
}

/** The list's records split by is_active, in list order, computed once per cached list. */
function splitOf(list: SerializedUserList): SplitList {
  let split = splits.get(list);
  if (split) return split;
  const active: Buffer[] = [];
  const inactive: Buffer[] = [];
  const activeAt = new Map<number, { start: number; end: number }>();
  let at = 1;
  for (const [id, { start, end, record }] of list.records) {
    const bytes = list.json.subarray(start, end);
    if (record.is_active === true) {
      if (active.length > 0) at++;
      activeAt.set(id, { start: at, end: at + bytes.length });
      at += bytes.length;
      active.push(bytes);
    } else {
      inactive.push(bytes);
    }
  }
  split = { active: joined(active), inactive: joined(inactive), activeAt };
  splits.set(list, split);
  return split;
}

const COMMA = Buffer.from(",");

function joined(records: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from("[")];
  records.forEach((r, i) => parts.push(...(i > 0 ? [COMMA, r] : [r])));
  parts.push(Buffer.from("]"));
  return Buffer.concat(parts);
}
