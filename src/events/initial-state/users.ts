/** realm_users, realm_non_active_users, realm_bots and the caller's own identity keys. */
import { listRealmBots, listRealmUsers } from "../../db/queries/users.js";
import { profileValuesForUsers } from "../../db/queries/custom-profile-fields.js";
import { profileFieldsOf } from "./custom-profile-fields.js";
import { toApiUser } from "../../api-records/user.js";
import { avatarUrl } from "../../lib/avatar.js";
import { profileDataByUser } from "../../lib/custom-profile-fields.js";
import { isAdmin, isGuest, isModerator, isOwner } from "../../lib/roles.js";
import { accessibleUserIds, apiEmail, canAccessUserIn, inaccessibleUserRecord } from "../../lib/users.js";
import { isNotificationBot } from "../../lib/notification-bot.js";
import { cachedRealmUserLists } from "./realm-user-list.js";
import { setRaw } from "./raw-json.js";
import type { State, StateContext, StateFetcher } from "./types.js";

/** The realm's bots (the notification bot included), cached per realm: flushed by any user change. */
const realmBots = (sc: StateContext) => sc.ctx.caches.registerBots.get(sc.realm.id, () => listRealmBots(sc.ctx.db, sc.realm.id));

export const fetchRealmUserState: StateFetcher = async (sc, state) => {
  const { ctx, realm, user } = sc;
  // A limited guest gets placeholders for users they cannot access, or nothing for them
  // with the user_list_incomplete capability (upstream get_users_for_api).
  const accessible = await accessibleUserIds(ctx.db, user);
  if (accessible === null) {
    const lists = await cachedRealmUserLists(sc);
    setRaw(state, "realm_users", lists.realm_users);
    setRaw(state, "realm_non_active_users", lists.realm_non_active_users);
  }
  else await limitedRealmUserLists(sc, state, accessible);
  // The notification bot is a system bot: listed in cross_realm_bots only, as upstream.
  const systemBots = (await realmBots(sc)).filter((b) => isNotificationBot(realm, b));
  state.cross_realm_bots = systemBots.map((b) => ({
    ...toApiUser(b, { requester: user, realmHost: sc.host, clientHashAvatar: false, shape: "list" }),
    is_system_bot: true,
  }));
  Object.assign(state, {
    user_id: user.id,
    email: apiEmail(user, sc.host),
    delivery_email: user.delivery_email,
    full_name: user.full_name,
    is_admin: isAdmin(user),
    is_owner: isOwner(user),
    is_moderator: isModerator(user),
    is_guest: isGuest(user),
    avatar_source: user.avatar_source,
    avatar_url: avatarUrl(user),
    avatar_url_medium: avatarUrl(user),
  });
};

/** The lists as a guest who may access only some users sees them, built per request. */
async function limitedRealmUserLists(sc: StateContext, state: State, accessible: ReadonlySet<number>): Promise<void> {
  const { ctx, realm, user } = sc;
  const users = (await listRealmUsers(ctx.db, realm.id)).filter((u) => !isNotificationBot(realm, u));
  const fields = await profileFieldsOf(sc);
  const values = await profileValuesForUsers(ctx.db, realm.id);
  const profiles = profileDataByUser(values, new Map(fields.map((f) => [f.id, f.field_type])));
  const omitInaccessible = sc.opts.clientCapabilities.user_list_incomplete === true;
  const records = users.flatMap((u): Array<Record<string, unknown>> => {
    if (!canAccessUserIn(accessible, u)) return omitInaccessible ? [] : [inaccessibleUserRecord(u.id, sc.host)];
    const profileData = u.is_bot ? undefined : (profiles.get(u.id) ?? {});
    return [toApiUser(u, { requester: user, realmHost: sc.host, clientHashAvatar: sc.opts.clientHashavatar, profileData, shape: "list" })];
  });
  state.realm_users = records.filter((r) => r.is_active === true);
  state.realm_non_active_users = records.filter((r) => r.is_active !== true);
}

/** Bots the caller administers: every bot for administrators, their own otherwise. */
export const fetchRealmBotState: StateFetcher = async (sc, state) => {
  const { realm, user } = sc;
  // Never the notification bot: its API key is handed to nobody.
  const bots = (await realmBots(sc)).filter(
    (u) => u.is_active === 1 && !isNotificationBot(realm, u) && (isAdmin(user) || u.bot_owner_id === user.id),
  );
  state.realm_bots = bots.map((b) => ({
    user_id: b.id,
    email: b.delivery_email,
    full_name: b.full_name,
    bot_type: b.bot_type,
    is_active: true,
    api_key: b.api_key,
    avatar_url: avatarUrl(b),
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    owner_id: b.bot_owner_id,
    services: [],
  }));
};
