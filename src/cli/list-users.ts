/** `parley list-users`: the users of one organization, bots included, with role and state. */
import { listRealmUserRows } from "../db/queries/users.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { findRealm, SUBDOMAIN_OPTION } from "./organization.js";
import { print, printJson } from "./output.js";
import { roleName } from "./roles.js";

export const listUsers: Command = {
  name: "list-users",
  summary: "List the users of an organization (id, email, name, role, state)",
  synopsis: "[--subdomain S] [--json]",
  options: { ...SUBDOMAIN_OPTION, json: { type: "boolean", default: false } },
  async run(config, values) {
    return withDatabase(config, async (ctx) => {
      const realm = await findRealm(ctx, String(values.subdomain));
      const users = await listRealmUserRows(ctx.db, realm.id, realm.notification_bot_id);
      const rows = users.map((u) => ({
        id: u.id,
        email: u.delivery_email,
        full_name: u.full_name,
        role: u.role,
        role_name: roleName(u.role),
        is_active: u.is_active === 1,
        is_bot: u.is_bot === 1,
      }));
      if (values.json) printJson(rows);
      else for (const u of rows) print([u.id, u.email, u.full_name, u.role_name, u.is_active ? "active" : "deactivated", u.is_bot ? "bot" : ""].join("\t").trimEnd());
      return 0;
    });
  },
};
