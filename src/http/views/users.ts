/** Reading users: GET /users/me, GET /users, GET /users/{id}, GET /users/{email}. */
import { ApiError, UnauthorizedError } from "../../errors.js";
import type { Realm, UserCard } from "../../db/schema.js";
import { listRealmUsers, maxMessageIdForUser } from "../../db/queries/users.js";
import { toApiUser, type ProfileData } from "../../api-records/user.js";
import { loadOwnProfileData, loadProfileData } from "../../lib/custom-profile-fields.js";
import {
  accessibleUserIds,
  accessUserByEmailForRead,
  accessUserById,
  canAccessUserIn,
  inaccessibleUserRecord,
  type Requester,
} from "../../lib/users.js";
import { isNotificationBot } from "../../lib/notification-bot.js";
import { p, v } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import { realmHost } from "../../lib/realm-host.js";
import type { ApiRequest, AuthedRequest, ViewResult } from "../request.js";
import { publicRoute, route } from "../route.js";
import { serializedFields } from "../response.js";
import { withRecord } from "../../caches/user-lists.js";
import { routes as adminRoutes } from "./users-admin.js";
import { fairTurn } from "../fair-turns.js";

export function hostOf(req: ApiRequest, realm: Realm = req.realm): string {
  return realmHost(realm.string_id, req.ctx.config.externalHost).toLowerCase();
}

interface RecordOptions {
  clientHashAvatar: boolean;
  includeProfile: boolean;
}

/** Records for several users: profile values are loaded in one query, never per user. */
async function userRecords(req: ApiRequest, users: UserCard[], opts: RecordOptions, allOfRealm: boolean, requester: Requester | null = req.user) {
  // Spectators never get custom profile data.
  const withProfile = opts.includeProfile && requester !== null;
  const profiles = withProfile
    ? await loadProfileData(req.ctx.db, req.realm.id, allOfRealm ? undefined : users.map((u) => u.id))
    : new Map<number, ProfileData>();
  const host = hostOf(req);
  return users.map((u) => {
    const record = toApiUser(u, {
      requester,
      realmHost: host,
      clientHashAvatar: opts.clientHashAvatar,
      profileData: withProfile && !u.is_bot ? (profiles.get(u.id) ?? {}) : undefined,
    });
    // Looked up by id or email, the notification bot shows as the system bot it is.
    if (isNotificationBot(req.realm, u)) record.is_system_bot = true;
    return record;
  });
}

const recordParams = () => ({
  client_hashavatar: p.bool().default(true),
  include_custom_profile_fields: p.bool().default(false),
});

/** GET /api/v1/users/me */
async function getOwnUser(req: AuthedRequest): Promise<ViewResult> {
  const user = req.user;
  const profiles = user.is_bot ? undefined : await req.ctx.caches.ownProfiles.get(req.realm.id, user.id, () => loadOwnProfileData(req.ctx.db, req.realm.id, user.id));
  const record = ownRecord(user, profiles, () => hostOf(req));
  const maxMessageId = await req.ctx.caches.maxMessageIds.get(req.realm.id, user.id, () => maxMessageIdForUser(req.ctx.db, req.realm.id, user.id));
  if (record.maxMessageId !== maxMessageId) {
    record.maxMessageId = maxMessageId;
    record.maxMessageIdJson = Buffer.from(`,"max_message_id":${maxMessageId}`);
  }
  // Both parts stay the same buffers while nothing changes: the body is built once for them.
  return serializedFields([record.members, record.maxMessageIdJson]);
}

/**
 * The caller's own record as UTF-8 JSON members (no braces), built once per user row and
 * profile values, with the last max_message_id sent for it. Both come from caches that
 * replace an object when its row changes and never change one in place, so the object
 * pair is the cache key: nothing to flush here.
 */
interface OwnRecord {
  members: Buffer;
  maxMessageId: number | null;
  maxMessageIdJson: Buffer;
}
const ownRecords = new WeakMap<UserCard, WeakMap<ProfileData, OwnRecord>>();
const NO_PROFILE: ProfileData = Object.freeze({});

function ownRecord(user: UserCard, profiles: ProfileData | undefined, host: () => string): OwnRecord {
  let byProfile = ownRecords.get(user);
  if (!byProfile) ownRecords.set(user, (byProfile = new WeakMap()));
  const key = profiles ?? NO_PROFILE;
  let record = byProfile.get(key);
  if (record === undefined) {
    const members = toApiUser(user, { requester: user, realmHost: host(), clientHashAvatar: false, profileData: profiles, shape: "own" });
    record = { members: Buffer.from(JSON.stringify(members).slice(1, -1)), maxMessageId: null, maxMessageIdJson: Buffer.alloc(0) };
    byProfile.set(key, record);
  }
  return record;
}

/** GET /api/v1/users */
async function getUsers(req: ApiRequest): Promise<ViewResult> {
  const params = parseParams(req, { ...recordParams(), user_ids: p.json(v.list(v.int())).optional() });
  if (req.user === null && !req.realm.enable_spectator_access) {
    throw new UnauthorizedError("Not logged in: API authentication or user session required");
  }
  // Hundreds of KB to megabytes of answer: a turn in arrival order (fair-turns.ts).
  await fairTurn();
  const opts = { clientHashAvatar: params.client_hashavatar, includeProfile: params.include_custom_profile_fields };
  // A limited guest gets upstream's placeholder record for each user they cannot access.
  const accessible = req.user === null ? null : await accessibleUserIds(req.ctx.db, req.user);
  if (params.user_ids === undefined && accessible === null) return serializedFields([MEMBERS_KEY, ...(await wholeRealmList(req, opts))]);
  // Not the notification bot: like upstream's system bots, it is no member of the realm.
  const users = (await listRealmUsers(req.ctx.db, req.realm.id, params.user_ids)).filter((u) => !isNotificationBot(req.realm, u));
  if (params.user_ids !== undefined) {
    const found = new Set(users.map((u) => u.id));
    const missing = params.user_ids.find((id) => !found.has(id));
    if (missing !== undefined) throw new ApiError(`Invalid user ID: ${missing}`);
  }
  const records = await userRecords(req, users.filter((u) => canAccessUserIn(accessible, u)), opts, params.user_ids === undefined);
  const byId = new Map(records.map((r) => [r.user_id as number, r]));
  return { members: users.map((u) => byId.get(u.id) ?? inaccessibleUserRecord(u.id, hostOf(req))) };
}

const MEMBERS_KEY = Buffer.from('"members":');

/**
 * Every user of the realm as a viewer with full access sees them, as JSON: cached per kind
 * of viewer (src/caches/user-lists.ts), rendered for "a viewer of this role"; the viewer's
 * own record (they always see their own email) is rendered for them and spliced in.
 */
async function wholeRealmList(req: ApiRequest, opts: RecordOptions): Promise<Buffer[]> {
  const viewer = req.user;
  const key = { realmId: req.realm.id, viewerRole: viewer?.role ?? null, clientHashAvatar: opts.clientHashAvatar, includeProfile: opts.includeProfile };
  const list = await req.ctx.caches.userLists.get(key, async () => {
    const users = (await listRealmUsers(req.ctx.db, req.realm.id)).filter((u) => !isNotificationBot(req.realm, u));
    return userRecords(req, users, opts, true, viewer === null ? null : { id: -1, role: viewer.role });
  });
  const own = viewer === null ? undefined : list.records.get(viewer.id);
  if (viewer === null || own === undefined) return [list.json];
  const profileData = own.record.profile_data as ProfileData | undefined;
  const record = toApiUser(viewer, { requester: viewer, realmHost: hostOf(req), clientHashAvatar: opts.clientHashAvatar, profileData });
  return withRecord(list, viewer.id, record);
}

/** GET /api/v1/users/{user_id} */
async function getUserById(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, recordParams());
  const target = await accessUserById(req.ctx.db, req.user, pathInt(req, "user_id"), {
    forAdmin: false,
    allowDeactivated: true,
    allowBots: true,
  });
  const opts = { clientHashAvatar: params.client_hashavatar, includeProfile: params.include_custom_profile_fields };
  return { user: (await userRecords(req, [target], opts, false))[0] };
}

/** GET /api/v1/users/{email} */
async function getUserByEmail(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, recordParams());
  const email = req.pathParams.email ?? "";
  const target = await accessUserByEmailForRead(req.ctx.db, req.user, email, hostOf(req));
  const opts = { clientHashAvatar: params.client_hashavatar, includeProfile: params.include_custom_profile_fields };
  return { user: (await userRecords(req, [target], opts, false))[0] };
}

export const routes = [
  route("GET", "/users/me", getOwnUser),
  publicRoute("GET", "/users", getUsers, "optional"),
  route("GET", "/users/{user_id:int}", getUserById),
  route("GET", "/users/{email}", getUserByEmail),
  ...adminRoutes,
];
