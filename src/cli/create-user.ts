/** `parley create-user`: a new user in an organization, through the same action as sign-up. */
import { doCreateUser } from "../actions/users-create.js";
import { Role } from "../lib/roles.js";
import { generatePassword } from "../lib/secrets.js";
import { checkFullName, isValidEmail } from "../lib/user-validation.js";
import { stringOption } from "./args.js";
import type { Command } from "./command.js";
import { withDatabase } from "./database.js";
import { findRealm, SUBDOMAIN_OPTION } from "./organization.js";
import { printJson } from "./output.js";
import { parseRole, ROLE_CHOICES } from "./roles.js";
import { UsageError } from "./usage-error.js";

export const createUser: Command = {
  name: "create-user",
  summary: "Create a user (prints its API key, and its password when generated)",
  synopsis: "--email E --full-name N [--password P] [--role R] [--subdomain S] [--json]",
  details: `Roles: ${ROLE_CHOICES}; member by default.`,
  options: {
    email: { type: "string" },
    "full-name": { type: "string" },
    password: { type: "string" },
    role: { type: "string", default: "member" },
    ...SUBDOMAIN_OPTION,
    json: { type: "boolean", default: false },
  },
  required: ["email", "full-name"],
  check(values) {
    if (!isValidEmail(stringOption(values, "email")!)) throw new UsageError("Enter a valid email address.");
    parseRole(stringOption(values, "role")!);
  },
  async run(config, values) {
    const email = stringOption(values, "email")!;
    if (!isValidEmail(email)) throw new UsageError("Enter a valid email address.");
    const role = parseRole(stringOption(values, "role") ?? String(Role.MEMBER));
    const password = stringOption(values, "password") ?? generatePassword();
    return withDatabase(config, async (ctx) => {
      const realm = await findRealm(ctx, stringOption(values, "subdomain")!);
      const user = await doCreateUser(ctx, realm, { email, fullName: checkFullName(stringOption(values, "full-name")!), password, role });
      const out: Record<string, unknown> = { realm_id: realm.id, user_id: user.id, email: user.delivery_email, api_key: user.api_key };
      if (values.password === undefined) out.password = password;
      printJson(out);
      return 0;
    });
  },
};
