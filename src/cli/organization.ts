/** Finding the organization, the user and the acting owner a command names. */
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import { findRealmBySubdomain, listRealms } from "../db/queries/realms.js";
import { findUserByDeliveryEmail, findUserById, firstActiveOwner } from "../db/queries/users.js";
import { Role } from "../lib/roles.js";
import { stringOption } from "./args.js";
import type { OptionSpec, OptionValues } from "./command.js";
import { CommandError } from "./usage-error.js";

export const SUBDOMAIN_OPTION: OptionSpec = { subdomain: { type: "string", short: "s", default: "" } };

export async function findRealm(ctx: AppContext, subdomain: string): Promise<Realm> {
  const realm = await findRealmBySubdomain(ctx.db, subdomain);
  if (realm) return realm;
  const known = (await listRealms(ctx.db)).map((r) => (r.string_id === "" ? "'' (the default)" : `'${r.string_id}'`));
  const hint = known.length ? `known subdomains: ${known.join(", ")}` : "there is none yet: run 'parley create-realm'";
  throw new CommandError(`no organization with subdomain '${subdomain}' (${hint})`);
}

/** A user by delivery email, or by id when given digits. */
export async function findUser(ctx: AppContext, realm: Realm, emailOrId: string): Promise<User> {
  const user = /^\d+$/.test(emailOrId)
    ? await findUserById(ctx.db, realm.id, Number(emailOrId))
    : await findUserByDeliveryEmail(ctx.db, realm.id, emailOrId.trim());
  if (!user || user.id === realm.notification_bot_id) throw new CommandError(`no user '${emailOrId}' in organization '${realm.string_id}'`);
  return user;
}

/** The organization (`--subdomain`) and the user (`--email`, or an id) a user command names. */
export async function namedUser(ctx: AppContext, values: OptionValues): Promise<{ realm: Realm; user: User }> {
  const realm = await findRealm(ctx, String(values.subdomain));
  return { realm, user: await findUser(ctx, realm, stringOption(values, "email")!) };
}

/**
 * Actions take the user who acts; the CLI acts as the organization's first active human
 * owner (the server operator has an owner's powers), so the actions' rules still apply.
 */
export async function actingOwner(ctx: AppContext, realm: Realm): Promise<User> {
  const owner = await firstActiveOwner(ctx.db, realm.id, Role.OWNER);
  if (!owner) throw new CommandError(`organization '${realm.string_id}' has no active owner to act as`);
  return owner;
}
