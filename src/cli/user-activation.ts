/** `parley deactivate-user` / `reactivate-user`: the same actions as the API's, so events and rules match. */
import { doDeactivateUser, doReactivateUser } from "../actions/users.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { SUBDOMAIN_OPTION, actingOwner, namedUser } from "./organization.js";
import { print } from "./output.js";

function activationCommand(active: boolean): Command {
  const name = active ? "reactivate-user" : "deactivate-user";
  return {
    name,
    summary: active ? "Reactivate a deactivated user" : "Deactivate a user (their API key and sessions stop working)",
    synopsis: "--email E [--subdomain S]",
    details: "--email also takes a user id.",
    options: { email: { type: "string" }, ...SUBDOMAIN_OPTION },
    required: ["email"],
    async run(config, values) {
      return withDatabase(config, async (ctx) => {
        const { realm, user } = await namedUser(ctx, values);
        const actor = await actingOwner(ctx, realm);
        if (active) await doReactivateUser(ctx, realm, actor, user.id);
        else await doDeactivateUser(ctx, realm, actor, user.id, actor.id === user.id);
        print(`${user.delivery_email} is ${active ? "reactivated" : "deactivated"}.`);
        return 0;
      });
    },
  };
}

export const deactivateUser = activationCommand(false);
export const reactivateUser = activationCommand(true);
