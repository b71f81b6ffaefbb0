/** Creating organizations: the realm, its system groups and permission defaults, its owner. */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import { withTransaction, type Tx } from "../db/tx.js";
import type { Realm, User } from "../db/schema.js";
import { REALM_GROUP_SETTING_DEFAULTS, SYSTEM_GROUPS, SYSTEM_GROUP_NESTING } from "../lib/system-groups.js";
import { Role } from "../lib/roles.js";
import { doCreateUserInTx } from "./users-create.js";
import { createRealmDefaultChannelInTx } from "./channels.js";
import { createNotificationBotInTx } from "./internal-messages.js";

/** A subdomain: lowercase letters, digits and inner dashes; "" is the default organization. */
export const SUBDOMAIN_PATTERN = /^([a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?)?$/;

export interface CreateRealmInput {
  name: string;
  subdomain: string;
  ownerEmail: string;
  ownerName: string;
  ownerPassword: string | null;
  description?: string;
}

export async function doCreateRealm(ctx: AppContext, input: CreateRealmInput): Promise<{ realm: Realm; owner: User }> {
  if (!SUBDOMAIN_PATTERN.test(input.subdomain)) {
    throw new ApiError("Subdomains can only contain lowercase letters, numbers, and dashes.");
  }
  return withTransaction(ctx.db, async (tx) => {
    const existing = await tx.selectFrom("realms").select("id").where("string_id", "=", input.subdomain).executeTakeFirst();
    if (existing) throw new ApiError(input.subdomain ? "Subdomain is already in use." : "The default organization already exists.");
    const { id: realmId } = await tx
      .insertInto("realms")
      .values({
        string_id: input.subdomain,
        name: input.name,
        description: input.description ?? "",
        date_created: nowSeconds(ctx),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await createSystemGroups(tx, realmId, nowSeconds(ctx));
    const realm = await tx.selectFrom("realms").selectAll().where("id", "=", realmId).executeTakeFirstOrThrow();
    const general = await createRealmDefaultChannelInTx(tx, ctx, realm);
    // New channels are announced in "general", as upstream's new realms do.
    await tx.updateTable("realms").set({ new_stream_announcements_stream_id: general.id }).where("id", "=", realmId).execute();
    const owner = await doCreateUserInTx(tx, ctx, realm, {
      email: input.ownerEmail,
      fullName: input.ownerName,
      password: input.ownerPassword,
      role: Role.OWNER,
    });
    await createNotificationBotInTx(tx, ctx, realm);
    return { realm: await tx.selectFrom("realms").selectAll().where("id", "=", realmId).executeTakeFirstOrThrow(), owner };
  });
}

async function createSystemGroups(tx: Tx, realmId: number, now: number): Promise<void> {
  const ids = new Map<string, number>();
  for (const g of SYSTEM_GROUPS) {
    const { id } = await tx
      .insertInto("user_groups")
      .values({ realm_id: realmId, name: g.name, description: g.description, is_system_group: 1, date_created: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.set(g.name, id);
  }
  const nobody = ids.get("role:nobody")!;
  await tx
    .updateTable("user_groups")
    .set({
      can_add_members_group_id: nobody,
      can_join_group_id: nobody,
      can_leave_group_id: nobody,
      can_manage_group_id: nobody,
      can_mention_group_id: nobody,
      can_remove_members_group_id: nobody,
    })
    .where("realm_id", "=", realmId)
    .execute();
  await tx
    .insertInto("user_group_subgroups")
    .values(SYSTEM_GROUP_NESTING.map(([sup, sub]) => ({ realm_id: realmId, supergroup_id: ids.get(sup)!, subgroup_id: ids.get(sub)! })))
    .execute();
  const settings = Object.fromEntries(
    Object.entries(REALM_GROUP_SETTING_DEFAULTS).map(([column, group]) => [column, ids.get(group)!]),
  );
  await tx.updateTable("realms").set(settings).where("id", "=", realmId).execute();
}
