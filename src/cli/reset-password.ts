/** `parley reset-password`: a new random password, printed or mailed to the user. */
import { doResetPassword, mailNewPassword } from "../actions/password-reset.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { SUBDOMAIN_OPTION, namedUser } from "./organization.js";
import { print, printJson } from "./output.js";

export const resetPassword: Command = {
  name: "reset-password",
  summary: "Give a user a new random password (printed, or mailed with --mail)",
  synopsis: "--email E [--mail] [--subdomain S] [--json]",
  details: "With --mail the password is sent to the user (PARLEY_SMTP_URL, or the outbox without it) and not printed.",
  options: { email: { type: "string" }, mail: { type: "boolean", default: false }, ...SUBDOMAIN_OPTION, json: { type: "boolean", default: false } },
  required: ["email"],
  async run(config, values) {
    return withDatabase(config, async (ctx) => {
      const { realm, user } = await namedUser(ctx, values);
      const password = await doResetPassword(ctx, realm, user);
      if (values.mail) {
        const outcome = await mailNewPassword(ctx, realm, user, password);
        const where = outcome.via === "smtp" ? "by SMTP" : `to the outbox (${outcome.path})`;
        if (values.json) printJson({ user_id: user.id, email: user.delivery_email, mailed: outcome.via, ...(outcome.via === "outbox" ? { path: outcome.path } : {}) });
        else print(`New password for ${user.delivery_email} mailed ${where}.`);
      } else if (values.json) {
        printJson({ user_id: user.id, email: user.delivery_email, password });
      } else {
        print(`New password for ${user.delivery_email}: ${password}`);
      }
      return 0;
    });
  },
};
