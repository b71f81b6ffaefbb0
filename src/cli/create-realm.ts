/** `parley create-realm`: a new organization and its owner. */
import { doCreateRealm } from "../actions/realms.js";
import { generatePassword } from "../lib/secrets.js";
import { checkFullName, isValidEmail } from "../lib/user-validation.js";
import { stringOption } from "./args.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { print, printJson } from "./output.js";
import { UsageError } from "./usage-error.js";

export const createRealm: Command = {
  name: "create-realm",
  summary: "Create an organization and its owner",
  synopsis: "--name N --owner-email E --owner-name N [--password P] [--subdomain S] [--json]",
  details: "Without --password a random one is made and printed. The subdomain '' (default) is served on the bare host.",
  options: {
    name: { type: "string" },
    "owner-email": { type: "string" },
    "owner-name": { type: "string" },
    password: { type: "string" },
    subdomain: { type: "string", short: "s", default: "" },
    json: { type: "boolean", default: false },
  },
  required: ["name", "owner-email", "owner-name"],
  check(values) {
    if (!isValidEmail(stringOption(values, "owner-email")!)) throw new UsageError("Enter a valid email address.");
  },
  createsDatabase: true,
  async run(config, values) {
    const email = stringOption(values, "owner-email")!;
    if (!isValidEmail(email)) throw new UsageError("Enter a valid email address.");
    const password = stringOption(values, "password") ?? generatePassword();
    return withDatabase(config, async (ctx) => {
      const { realm, owner } = await doCreateRealm(ctx, {
        name: stringOption(values, "name")!,
        subdomain: stringOption(values, "subdomain")!,
        ownerEmail: email,
        ownerName: checkFullName(stringOption(values, "owner-name")!),
        ownerPassword: password,
      });
      const out: Record<string, unknown> = { realm_id: realm.id, user_id: owner.id, email: owner.delivery_email, api_key: owner.api_key };
      if (values.password === undefined) out.password = password;
      if (values.json) printJson(out);
      else print(`Created organization ${realm.id} with owner ${owner.delivery_email}.\n${JSON.stringify(out)}`);
      return 0;
    });
  },
};
