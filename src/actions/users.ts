/**
 * Changing users: role, name, profile data and email (PATCH /users/{id}), deactivation and
 * reactivation, and the realm_user events that announce them.
 */
import { endUserSessions } from "./sessions.js";
import type { AppContext } from "../context.js";
import { ApiError, mustBeAdmin, mustBeOwner } from "../errors.js";
import { withTransaction, type Queryable, type Tx } from "../db/tx.js";
import type { Realm, User, UserUpdate } from "../db/schema.js";
import { activeRealmUsers, activeUserIds, countActiveHumanOwners, findUserByDeliveryEmail, findUserById, updateUserRow } from "../db/queries/users.js";
import { sendEventOnCommit } from "../events/send.js";
import { END_USER_QUEUES_EVENT } from "../events/types.js";
import { toApiUser } from "../api-records/user.js";
import type { ProfileDataUpdate } from "../lib/custom-profile-fields.js";
import { isAdmin, isOwner, Role } from "../lib/roles.js";
import { checkFullName, isValidEmail, normalizeEmail } from "../lib/user-validation.js";
import { canSeeDeliveryEmail, checkUserAccess, inaccessibleUserRecord, limitedGuestIds, userIdsWhoCanAccess, usersWhoCanAccess } from "../lib/users.js";
import { isNotificationBot } from "../lib/notification-bot.js";
import { realmHost } from "../lib/realm-host.js";
import { applyProfileDataInTx } from "./custom-profile-fields.js";
import { sendPeerEventsForUserActivation } from "./subscriptions.js";
import { setSystemGroupsForRole } from "./system-group-membership.js";
import { sendGroupMembershipsOnReactivation } from "./user-groups.js";

export interface UpdateUserInput {
  fullName?: string;
  role?: number;
  profileData?: ProfileDataUpdate[];
  newEmail?: string;
}

const lastOwner = () => new ApiError("The owner permission cannot be removed from the only organization owner.");

async function isLastHumanOwner(tx: Tx, target: User): Promise<boolean> {
  return isOwner(target) && !target.is_bot && target.is_active === 1 && (await countActiveHumanOwners(tx, target.realm_id, Role.OWNER)) <= 1;
}

function realmUserUpdate(person: Record<string, unknown>) {
  return { type: "realm_user", op: "update", person };
}

/**
 * The target of an administrative change. The notification bot is no member of the realm
 * (upstream's system bots live outside it), so it is "No such user" here, as upstream.
 */
async function findMemberForAdmin(db: Queryable, realm: Realm, targetId: number): Promise<User> {
  const found = await findUserById(db, realm.id, targetId);
  if (!found || isNotificationBot(realm, found)) throw new ApiError("No such user");
  return found;
}

/**
 * PATCH /users/{id}, after parameter parsing. Checks in upstream's order: target exists →
 * caller administers it → role → full_name → profile_data → new_email.
 */
export async function doUpdateUser(ctx: AppContext, realm: Realm, actor: User, targetId: number, input: UpdateUserInput): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const found = await findMemberForAdmin(tx, realm, targetId);
    const target = checkUserAccess(actor, found, { forAdmin: true, allowDeactivated: true, allowBots: true });
    // Changes to a user go to the users who can access them (limited guests may not).
    const audience = await userIdsWhoCanAccess(tx, realm.id, target);

    if (input.role !== undefined && input.role !== target.role) {
      if ((input.role === Role.OWNER || target.role === Role.OWNER) && !isOwner(actor)) throw mustBeOwner();
      if (!isAdmin(actor)) throw mustBeAdmin();
      if (await isLastHumanOwner(tx, target)) throw lastOwner();
      await changeRole(tx, ctx, target, input.role);
      sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: target.id, role: input.role }), audience);
    }

    if (input.fullName !== undefined && input.fullName !== target.full_name && input.fullName.trim() !== "") {
      const name = checkFullName(input.fullName);
      if (name !== target.full_name) {
        await updateUserRow(tx, realm.id, target.id, { full_name: name });
        sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: target.id, full_name: name }), audience);
      }
    }

    if (input.profileData !== undefined) {
      await applyProfileDataInTx(tx, ctx, realm, target, input.profileData, { actor, checkEditable: false });
    }

    if (input.newEmail !== undefined) {
      if (!isOwner(actor)) throw mustBeOwner();
      if (!actor.can_change_user_emails) throw new ApiError("User not authorized to change user emails");
      const email = normalizeEmail(input.newEmail);
      if (!isValidEmail(email)) throw new ApiError("Invalid address.");
      if (email !== target.delivery_email) {
        const taken = await findUserByDeliveryEmail(tx, realm.id, email);
        if (taken) throw new ApiError(`Email '${input.newEmail.trim()}' already in use`);
        await updateUserRow(tx, realm.id, target.id, { delivery_email: email });
        await announceEmailChange(tx, ctx, realm, { ...target, delivery_email: email });
      }
    }
  });
}

async function changeRole(tx: Tx, ctx: AppContext, target: User, role: number): Promise<void> {
  await updateUserRow(tx, target.realm_id, target.id, { role });
  await setSystemGroupsForRole(tx, ctx, target.realm_id, target.id, role);
}

/**
 * The real address goes only to users allowed to see it; when the target's email is public
 * (visibility "everyone", or a bot), everyone also learns the new API email.
 */
async function announceEmailChange(tx: Tx, ctx: AppContext, realm: Realm, target: User): Promise<void> {
  const users = await usersWhoCanAccess(tx, realm.id, target);
  const canSee = users.filter((u) => canSeeDeliveryEmail(u, target)).map((u) => u.id);
  sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: target.id, delivery_email: target.delivery_email }), canSee);
  if (canSeeDeliveryEmail(null, target)) {
    sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: target.id, new_email: target.delivery_email }), users.map((u) => u.id));
  }
}

/** Deactivates a user (checks done by the caller's view or below) and tells the realm. */
export async function doDeactivateUser(ctx: AppContext, realm: Realm, actor: User, targetId: number, self: boolean): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const found = await findMemberForAdmin(tx, realm, targetId);
    let target = found;
    if (self) {
      // The notification bot is no member (upstream's system bots live outside the realm).
      const active = (await activeUserIds(tx, realm.id)).filter((id) => id !== realm.notification_bot_id);
      if (active.length === 1) throw cannotDeactivateLast(false);
      if (await isLastHumanOwner(tx, target)) throw cannotDeactivateLast(true);
    } else {
      target = checkUserAccess(actor, found, { forAdmin: true });
      if (isOwner(target) && !isOwner(actor)) throw mustBeOwner();
      if (await isLastHumanOwner(tx, target)) throw new ApiError("Cannot deactivate the only organization owner");
    }
    await updateUserRow(tx, realm.id, target.id, { is_active: 0 });
    // Their browser sessions end with the account (reactivation does not bring them back).
    await endUserSessions(tx, realm.id, target.id);
    // As upstream: the subscriptions stay, but subscriber lists drop the user (peer_remove
    // to those who may see each channel's subscribers), then the remaining active users
    // update their user lists.
    await sendPeerEventsForUserActivation(tx, ctx, realm, target, false);
    const audience = await userIdsWhoCanAccess(tx, realm.id, target);
    sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: target.id, is_active: false }), audience);
    // The user's own clients stop: their queues end and a waiting poll gets the error the
    // next request would (the API key is refused from now on).
    sendEventOnCommit(tx, ctx, realm.id, { type: END_USER_QUEUES_EVENT }, [target.id]);
  });
}

function cannotDeactivateLast(isLastOwner: boolean): ApiError {
  const entity = isLastOwner ? "organization owner" : "user";
  return new ApiError(`Cannot deactivate the only ${entity}.`, {
    code: "CANNOT_DEACTIVATE_LAST_USER",
    data: { is_last_owner: isLastOwner, entity },
  });
}

export async function doReactivateUser(ctx: AppContext, realm: Realm, actor: User, targetId: number): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const found = await findMemberForAdmin(tx, realm, targetId);
    const target = checkUserAccess(actor, found, { forAdmin: true, allowDeactivated: true, allowBots: true });
    if (target.is_active) throw new ApiError("User is already active.");
    await updateUserRow(tx, realm.id, target.id, { is_active: 1 } satisfies UserUpdate);
    const audience = await userIdsWhoCanAccess(tx, realm.id, target);
    sendEventOnCommit(tx, ctx, realm.id, realmUserUpdate({ user_id: target.id, is_active: true }), audience);
    // The user's kept subscriptions count again: peer_add for each channel, as upstream.
    await sendPeerEventsForUserActivation(tx, ctx, realm, { ...target, is_active: 1 }, true);
    await sendGroupMembershipsOnReactivation(tx, ctx, realm.id, target.id);
  });
}

/**
 * afterUserCreatedHooks entry: `realm_user` op `add` with the full person record to the
 * realm's active users, the real email only to those allowed to see it. Limited guests
 * are told by announceUserToLimitedGuests, once the default subscriptions exist.
 */
export async function announceUserCreated(tx: Tx, ctx: AppContext, realm: Realm, user: User): Promise<void> {
  const users = await activeRealmUsers(tx, realm.id);
  const limited = user.is_bot ? new Set<number>() : await limitedGuestIds(tx, realm.id, users);
  sendFullRecord(tx, ctx, realm, user, users.filter((u) => !limited.has(u.id)));
}

/**
 * The last afterUserCreatedHooks entry (upstream notify_created_user): a limited guest who
 * can access the new user (a shared default channel) gets the full record; the others get
 * upstream's "Unknown user" placeholder, which clients with user_list_incomplete never see.
 */
export async function announceUserToLimitedGuests(tx: Tx, ctx: AppContext, realm: Realm, user: User): Promise<void> {
  if (user.is_bot) return;
  const users = await activeRealmUsers(tx, realm.id);
  const limited = await limitedGuestIds(tx, realm.id, users);
  if (limited.size === 0) return;
  const accessors = new Set((await usersWhoCanAccess(tx, realm.id, user)).map((u) => u.id));
  sendFullRecord(tx, ctx, realm, user, users.filter((u) => limited.has(u.id) && accessors.has(u.id)));
  const blind = users.filter((u) => limited.has(u.id) && !accessors.has(u.id)).map((u) => u.id);
  if (blind.length === 0) return;
  const person = inaccessibleUserRecord(user.id, realmHost(realm.string_id, ctx.config.externalHost));
  sendEventOnCommit(tx, ctx, realm.id, { type: "realm_user", op: "add", person, internal_data: { inaccessible_user: true } }, blind);
}

/** `realm_user` add with the full record; the real email only to those allowed to see it. */
function sendFullRecord(tx: Tx, ctx: AppContext, realm: Realm, user: User, recipients: ReadonlyArray<{ id: number; role: number }>): void {
  const host = realmHost(realm.string_id, ctx.config.externalHost);
  const groups = new Map<boolean, { requester: { id: number; role: number }; ids: number[] }>();
  for (const u of recipients) {
    const sees = canSeeDeliveryEmail(u, user);
    const g = groups.get(sees) ?? { requester: u, ids: [] };
    g.ids.push(u.id);
    groups.set(sees, g);
  }
  for (const { requester, ids } of groups.values()) {
    const person = toApiUser(user, { requester, realmHost: host, clientHashAvatar: false, profileData: {} });
    sendEventOnCommit(tx, ctx, realm.id, { type: "realm_user", op: "add", person }, ids);
  }
}
