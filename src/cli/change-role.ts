/** `parley change-role`: through the same action as PATCH /users/{id}, so events and rules match. */
import { doUpdateUser } from "../actions/users.js";
import { stringOption } from "./args.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { SUBDOMAIN_OPTION, actingOwner, namedUser } from "./organization.js";
import { print } from "./output.js";
import { parseRole, ROLE_CHOICES, roleName } from "./roles.js";

export const changeRole: Command = {
  name: "change-role",
  summary: "Change a user's role",
  synopsis: "--email E --role R [--subdomain S]",
  details: `Roles: ${ROLE_CHOICES}. --email also takes a user id. The only owner cannot be demoted.`,
  options: { email: { type: "string" }, role: { type: "string" }, ...SUBDOMAIN_OPTION },
  required: ["email", "role"],
  check: (values) => void parseRole(stringOption(values, "role")!),
  async run(config, values) {
    const role = parseRole(stringOption(values, "role")!);
    return withDatabase(config, async (ctx) => {
      const { realm, user } = await namedUser(ctx, values);
      await doUpdateUser(ctx, realm, await actingOwner(ctx, realm), user.id, { role });
      print(`${user.delivery_email} is now ${roleName(role)} (${role}); was ${roleName(user.role)} (${user.role}).`);
      return 0;
    });
  },
};
