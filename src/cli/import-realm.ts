/** `parley import-realm`: load a JSON archive from export-realm as a new organization. */
import fs from "node:fs";
import { SUBDOMAIN_PATTERN } from "../actions/realms.js";
import { archiveProblem, importRealm as loadArchive, type RealmArchive } from "../db/realm-archive.js";
import { findRealmBySubdomain } from "../db/queries/realms.js";
import { stringOption } from "./args.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { print } from "./output.js";
import { CommandError, UsageError } from "./usage-error.js";

export const importRealm: Command = {
  name: "import-realm",
  summary: "Load an archive from export-realm as a new organization",
  synopsis: "--input FILE [--subdomain S]",
  details: "The subdomain must be free (default: the archive's own). Users get new API keys; passwords are kept.",
  options: { input: { type: "string", short: "i" }, subdomain: { type: "string", short: "s" } },
  required: ["input"],
  createsDatabase: true,
  async run(config, values) {
    const file = stringOption(values, "input")!;
    let archive: unknown;
    try {
      archive = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
      throw new CommandError(`cannot read ${file}: ${(err as Error).message}`);
    }
    const problem = archiveProblem(archive);
    if (problem) throw new CommandError(`${file}: ${problem}`);
    const a = archive as RealmArchive;
    const subdomain = stringOption(values, "subdomain") ?? String(a.realm.string_id);
    if (!SUBDOMAIN_PATTERN.test(subdomain)) throw new UsageError("Subdomains can only contain lowercase letters, numbers, and dashes.");
    return withDatabase(config, async (ctx) => {
      if (await findRealmBySubdomain(ctx.db, subdomain)) throw new CommandError(`subdomain '${subdomain}' is already in use; choose another with --subdomain`);
      const { realmId, counts } = await loadArchive(ctx.db, a, subdomain);
      print(`Imported organization ${realmId} as '${subdomain}': ${counts.users} users, ${counts.channels} channels, ${counts.messages} messages, ${counts.reactions} reactions.`);
      return 0;
    });
  },
};
