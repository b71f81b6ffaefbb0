/**
 * What other families do when a user is created (subscribe to default channels,
 * announce the user to the realm…). Each family registers its hook here, so user
 * creation does not import every family.
 */
import type { AppContext } from "../context.js";
import type { Tx } from "../db/tx.js";
import type { Realm, User } from "../db/schema.js";
import { announceUserCreated, announceUserToLimitedGuests } from "./users.js";
import { subscribeToDefaultChannels } from "./subscriptions.js";

export type UserCreatedHook = (tx: Tx, ctx: AppContext, realm: Realm, user: User) => Promise<void>;

// Order matters: clients learn of the new user (realm_user add) before the peer_add
// events that name them, as upstream does; limited guests last, once the default
// subscriptions decide whether they can access the new user.
export const afterUserCreatedHooks: UserCreatedHook[] = [
  announceUserCreated,
  subscribeToDefaultChannels,
  announceUserToLimitedGuests,
];
