/** `parley export-realm`: an organization to a JSON archive (see src/db/realm-archive.ts). */
import fs from "node:fs";
import path from "node:path";
import { exportRealm as archiveRealm } from "../db/realm-archive.js";
import { stringOption } from "./args.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { findRealm, SUBDOMAIN_OPTION } from "./organization.js";
import { print } from "./output.js";
import { CommandError } from "./usage-error.js";

export const exportRealm: Command = {
  name: "export-realm",
  summary: "Write an organization (users, channels, subscriptions, messages, reactions, groups) to a JSON archive",
  synopsis: "--output FILE [--subdomain S] [--force]",
  details: "The file holds password hashes and messages: keep it private. --force overwrites an existing file.",
  options: { output: { type: "string", short: "o" }, ...SUBDOMAIN_OPTION, force: { type: "boolean", default: false } },
  required: ["output"],
  async run(config, values) {
    const file = stringOption(values, "output")!;
    if (fs.existsSync(file) && !values.force) throw new CommandError(`${file} exists; give --force to overwrite it`);
    return withDatabase(config, async (ctx) => {
      const realm = await findRealm(ctx, String(values.subdomain));
      const archive = await archiveRealm(ctx.db, realm.id, Math.floor(Date.now() / 1000));
      // Write then rename, so a crash never leaves half an archive under the name.
      const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
      fs.writeFileSync(tmp, JSON.stringify(archive), { mode: 0o600 });
      fs.renameSync(tmp, file);
      print(`Exported organization '${realm.string_id}' to ${file}: ${archive.users.length} users, ${archive.channels.length} channels, ${archive.messages.length} messages, ${archive.reactions.length} reactions.`);
      return 0;
    });
  },
};
