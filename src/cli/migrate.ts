/** `parley migrate`: create or upgrade the schema. */
import { openContext } from "../server.js";
import type { Command } from "./command.js";
import { print } from "./output.js";

export const migrate: Command = {
  name: "migrate",
  summary: "Create or upgrade the database schema",
  synopsis: "",
  options: {},
  createsDatabase: true,
  async run(config) {
    const { ctx, applied } = await openContext(config);
    await ctx.db.destroy();
    print(applied.length ? `Applied migrations: ${applied.join(", ")}.` : "Database is up to date.");
    return 0;
  },
};
