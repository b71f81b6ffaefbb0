/** Creating users and bots: one row, system-group membership, events to the realm. */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import { withTransaction, type Tx } from "../db/tx.js";
import type { Realm, User } from "../db/schema.js";
import { generateApiKey, hashPassword } from "../lib/secrets.js";
import { normalizeEmail } from "../lib/user-validation.js";
import { afterUserCreatedHooks } from "./user-created-hooks.js";
import { subscribeToDefaultChannels } from "./subscriptions.js";
import { setSystemGroupsForRole } from "./system-group-membership.js";

export interface CreateUserInput {
  email: string;
  fullName: string;
  /** null: no password login. */
  password: string | null;
  role: number;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  /** false: not subscribed to the realm's default channels (invitations without them). */
  defaultChannels?: boolean;
}

export async function doCreateUser(ctx: AppContext, realm: Realm, input: CreateUserInput): Promise<User> {
  // Hash outside the transaction: it is slow on purpose.
  const passwordHash = input.password === null ? null : await hashPassword(input.password);
  return withTransaction(ctx.db, (tx) => insertUser(tx, ctx, realm, input, passwordHash));
}

export async function doCreateUserInTx(tx: Tx, ctx: AppContext, realm: Realm, input: CreateUserInput): Promise<User> {
  const passwordHash = input.password === null ? null : await hashPassword(input.password);
  return insertUser(tx, ctx, realm, input, passwordHash);
}

async function insertUser(tx: Tx, ctx: AppContext, realm: Realm, input: CreateUserInput, passwordHash: string | null): Promise<User> {
  const email = normalizeEmail(input.email);
  const taken = await tx
    .selectFrom("users")
    .select("id")
    .where("realm_id", "=", realm.id)
    .where("delivery_email", "=", email)
    .executeTakeFirst();
  if (taken) throw new ApiError(`Email '${input.email}' already in use`);
  const user = await tx
    .insertInto("users")
    .values({
      realm_id: realm.id,
      delivery_email: email,
      full_name: input.fullName,
      role: input.role,
      is_bot: input.isBot ? 1 : 0,
      bot_type: input.isBot ? (input.botType ?? 1) : null,
      bot_owner_id: input.isBot ? (input.botOwnerId ?? null) : null,
      timezone: input.timezone ?? "",
      api_key: generateApiKey(),
      password_hash: passwordHash,
      date_joined: nowSeconds(ctx),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  for (const hook of afterUserCreatedHooks) {
    if (hook === subscribeToDefaultChannels && input.defaultChannels === false) continue;
    await hook(tx, ctx, realm, user);
  }
  await setSystemGroupsForRole(tx, ctx, realm.id, user.id, user.role);
  return user;
}
