#!/usr/bin/env node
/** The `parley` command: serve, migrate, create-realm, create-user. */
import { parseArgs } from "node:util";
import { loadConfig } from "./config.js";
import { createContext, startServer } from "./server.js";
import { doCreateRealm } from "./actions/realms.js";
import { doCreateUser } from "./actions/users-create.js";
import { ApiError } from "./errors.js";
import { findRealmBySubdomain } from "./db/queries/realms.js";
import { ALL_ROLES, Role } from "./lib/roles.js";
import { generatePassword } from "./lib/secrets.js";
import { checkFullName, isValidEmail } from "./lib/user-validation.js";
import { outboxCommand } from "./cli-outbox.js";

const USAGE = `Usage: parley <command> [options]

Commands:
  serve                     Run the server (PORT, HOST, PARLEY_DATA_DIR, DATABASE_URL, PARLEY_EXTERNAL_HOST)
  migrate                   Create or upgrade the database schema
  create-realm --name N --owner-email E --owner-name N [--password P] [--subdomain S] [--json]
  create-user --email E --full-name N [--password P] [--role 100|200|300|400|600] [--subdomain S] [--json]
  outbox [--json] [FILE]    List the mail kept in PARLEY_DATA_DIR/outbox (no SMTP configured), or print one message
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case "serve":
    case undefined: {
      const { app } = await startServer(config);
      const stop = async () => {
        await app.close();
        process.exit(0);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      return -1;
    }
    case "migrate": {
      const ctx = await createContext(config);
      await ctx.db.destroy();
      console.log("Database is up to date.");
      return 0;
    }
    case "create-realm":
      return createRealm(config, rest);
    case "create-user":
      return createUser(config, rest);
    case "outbox":
      return outboxCommand(config, rest);
    default:
      process.stderr.write(USAGE);
      return command === "help" || command === "--help" ? 0 : 2;
  }
}

async function createRealm(config: ReturnType<typeof loadConfig>, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: "string" },
      "owner-email": { type: "string" },
      "owner-name": { type: "string" },
      password: { type: "string" },
      subdomain: { type: "string", default: "" },
      json: { type: "boolean", default: false },
    },
  });
  const { name, "owner-email": email, "owner-name": ownerName } = values;
  if (!name || !email || !ownerName) return usageError("create-realm needs --name, --owner-email and --owner-name");
  if (!isValidEmail(email)) return usageError("Enter a valid email address.");
  const password = values.password ?? generatePassword();
  const ctx = await createContext(config);
  try {
    const { realm, owner } = await doCreateRealm(ctx, {
      name,
      subdomain: values.subdomain!,
      ownerEmail: email,
      ownerName: checkFullName(ownerName),
      ownerPassword: password,
    });
    const out: Record<string, unknown> = { realm_id: realm.id, user_id: owner.id, email: owner.delivery_email, api_key: owner.api_key };
    if (values.password === undefined) out.password = password;
    console.log(values.json ? JSON.stringify(out) : `Created organization ${realm.id} with owner ${owner.delivery_email}.\n${JSON.stringify(out)}`);
    return 0;
  } finally {
    await ctx.db.destroy();
  }
}

async function createUser(config: ReturnType<typeof loadConfig>, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: "string" },
      "full-name": { type: "string" },
      password: { type: "string" },
      role: { type: "string", default: String(Role.MEMBER) },
      subdomain: { type: "string", default: "" },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.email || !values["full-name"]) return usageError("create-user needs --email and --full-name");
  if (!isValidEmail(values.email)) return usageError("Enter a valid email address.");
  const role = Number(values.role);
  if (!ALL_ROLES.includes(role)) return usageError("Invalid role");
  const password = values.password ?? generatePassword();
  const ctx = await createContext(config);
  try {
    const realm = await findRealmBySubdomain(ctx.db, values.subdomain!);
    if (!realm) return usageError(`No organization with subdomain '${values.subdomain}'; run create-realm first.`);
    const user = await doCreateUser(ctx, realm, { email: values.email, fullName: checkFullName(values["full-name"]), password, role });
    const out: Record<string, unknown> = { realm_id: realm.id, user_id: user.id, email: user.delivery_email, api_key: user.api_key };
    if (values.password === undefined) out.password = password;
    console.log(JSON.stringify(out));
    return 0;
  } finally {
    await ctx.db.destroy();
  }
}

function usageError(message: string): number {
  process.stderr.write(`parley: ${message}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`parley: ${err instanceof ApiError ? err.message : String((err as Error)?.stack ?? err)}\n`);
    process.exit(1);
  },
);
