/** `parley list-realms`: the organizations on this server. */
import { listRealms as queryRealms } from "../db/queries/realms.js";
import { realmUrl } from "../lib/realm-host.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { print, printJson } from "./output.js";

export const listRealms: Command = {
  name: "list-realms",
  summary: "List the organizations (id, subdomain, URL, name)",
  synopsis: "[--json]",
  options: { json: { type: "boolean", default: false } },
  async run(config, values) {
    return withDatabase(config, async (ctx) => {
      const rows = (await queryRealms(ctx.db)).map((r) => ({
        id: r.id,
        subdomain: r.string_id,
        url: realmUrl(r.string_id, config.externalHost),
        name: r.name,
        deactivated: r.deactivated === 1,
      }));
      if (values.json) printJson(rows);
      else if (rows.length === 0) print("No organization yet: create one with 'parley create-realm'.");
      else for (const r of rows) print([r.id, r.subdomain || "''", r.url, r.name, r.deactivated ? "(deactivated)" : ""].join("\t").trimEnd());
      return 0;
    });
  },
};
