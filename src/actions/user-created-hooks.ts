/**
 * What other families do when a user is created (subscribe to default channels,
 * announce the user to the realm…). Each family registers its hook here, so user
 * creation does not import every family.
 */
import type { AppContext } from "../context.js";
import type { Tx } from "../db/tx.js";
import type { Realm, User } from "../db/schema.js";

export type UserCreatedHook = (tx: Tx, ctx: AppContext, realm: Realm, user: User) => Promise<void>;

export const afterUserCreatedHooks: UserCreatedHook[] = [];
