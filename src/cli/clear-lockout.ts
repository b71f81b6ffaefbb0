/**
 * `parley clear-lockout`: lift a login lock-out (too many wrong passwords). The counters live
 * in the running server, so this records the clear in the database; the server consumes it
 * at the user's next login attempt (src/http/login-lockout.ts).
 */
import { recordLockoutClear } from "../db/queries/login-lockouts.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { SUBDOMAIN_OPTION, namedUser } from "./organization.js";
import { print } from "./output.js";

export const clearLockout: Command = {
  name: "clear-lockout",
  summary: "Let a user who was locked out by wrong passwords log in again now",
  synopsis: "--email E [--subdomain S]",
  details: "Takes effect at the user's next login attempt on the running server; no restart needed.",
  options: { email: { type: "string" }, ...SUBDOMAIN_OPTION },
  required: ["email"],
  async run(config, values) {
    return withDatabase(config, async (ctx) => {
      const { realm, user } = await namedUser(ctx, values);
      await recordLockoutClear(ctx.db, realm.id, user.delivery_email, Math.floor(Date.now() / 1000));
      print(`Login lock-out cleared for ${user.delivery_email}.`);
      return 0;
    });
  },
};
