/**
 * The `parley` command, run as a child process against a temporary data folder (or, with
 * TEST_DATABASE_URL, a fresh PostgreSQL database given as DATABASE_URL).
 */
import fs from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { openDb } from "../../src/db/connect.js";
import type { DB } from "../../src/db/schema.js";
import { verifyPassword } from "../../src/lib/secrets.js";
import { contextFor } from "../../src/server.js";
import { injectChecked } from "../support/client.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { cliEnv, ensureBuilt, hasStack, runCli, tempDataDir, type CliResult } from "./run-cli.js";

// Each test runs a few processes of a second or so; on a loaded machine that takes longer.
vi.setConfig({ testTimeout: 120_000 });

let dataDir: string;
let env: NodeJS.ProcessEnv;
let pgDb: TestDb | undefined;
let db: Kysely<DB> | undefined;

beforeAll(async () => {
  await ensureBuilt();
  dataDir = tempDataDir();
  if (process.env.TEST_DATABASE_URL) pgDb = await createTestDb();
  env = cliEnv({ PARLEY_DATA_DIR: dataDir, DATABASE_URL: pgDb?.url });
}, 240_000);

afterAll(async () => {
  if (!pgDb) await db?.destroy();
  await pgDb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The database the commands use, opened in this process (after create-realm made it). */
function database(): Kysely<DB> {
  db ??= pgDb?.db ?? openDb({ sqlitePath: path.join(dataDir, "parley.sqlite3") });
  return db;
}

const parley = (...args: string[]) => runCli(args, env);

function expectUsageError(r: CliResult, message: string, usage: string): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.split("\n");
  expect(lines[0]).toBe(`parley: ${message}`);
  expect(lines[1]).toBe(usage);
  expect(hasStack(r.stderr)).toBe(false);
}

function expectOk(r: CliResult): string {
  expect(r.stderr.split("\n")[0]).toMatch(pgDb ? /^parley: using PostgreSQL database parley_test_\w+ on [^ ]+ \(DATABASE_URL\)$/ : /^parley: using SQLite database \/.+\/parley\.sqlite3 \(PARLEY_DATA_DIR=.+\)$/);
  expect({ code: r.code, stderr: r.stderr.split("\n").slice(1).join("\n") }).toEqual({ code: 0, stderr: "" });
  return r.stdout;
}

describe("help and mistakes", () => {
  it("--help, --version and help COMMAND print on stdout", async () => {
    const [help, version, one] = await Promise.all([parley("--help"), parley("--version"), parley("help", "change-role")]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: parley <command> \[options\]/);
    for (const c of ["serve", "list-realms", "list-users", "change-role", "deactivate-user", "reactivate-user", "reset-password", "clear-lockout", "outbox", "export-realm", "import-realm"]) {
      expect(help.stdout).toContain(`\n  ${c} `);
    }
    expect(help.stdout).toContain("PARLEY_DATA_DIR");
    expect(help.stdout).toContain("DATABASE_URL");
    expect(version).toEqual({ code: 0, stdout: `parley ${JSON.parse(fs.readFileSync("package.json", "utf8")).version}\n`, stderr: "" });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^Usage: parley change-role --email E --role R \[--subdomain S\]\n/);
    expect(one.stdout).toContain("owner (100), administrator or admin (200), moderator (300), member (400), guest (600)");
  });

  it("says what was wrong in one line, then the usage, exit 2, no stack", async () => {
    const [bogus, option, missing, role, helpBogus, extra] = await Promise.all([
      parley("bogus"),
      parley("create-user", "--bogus"),
      parley("create-user", "--email"),
      parley("change-role", "--email", "a@b.test", "--role", "boss"),
      parley("help", "bogus"),
      parley("list-users", "stray"),
    ]);
    expectUsageError(bogus, "unknown command 'bogus'", "Usage: parley <command> [options]");
    expectUsageError(option, "unknown option '--bogus'", "Usage: parley create-user --email E --full-name N [--password P] [--role R] [--subdomain S] [--json]");
    expectUsageError(missing, "option '--email' needs a value", "Usage: parley create-user --email E --full-name N [--password P] [--role R] [--subdomain S] [--json]");
    expectUsageError(role, "invalid role 'boss'; use one of: owner (100), administrator or admin (200), moderator (300), member (400), guest (600)", "Usage: parley change-role --email E --role R [--subdomain S]");
    expectUsageError(helpBogus, "unknown command 'bogus'", "Usage: parley <command> [options]");
    expectUsageError(extra, "unexpected argument 'stray'", "Usage: parley list-users [--subdomain S] [--json]");
    expectUsageError(await parley("serve", "--port", "eighty"), "--port must be a whole number, not 'eighty'", "Usage: parley serve [--port N] [--host H]");
    const required = await parley("create-realm", "--name", "X");
    expectUsageError(required, "create-realm needs --owner-email", "Usage: parley create-realm --name N --owner-email E --owner-name N [--password P] [--subdomain S] [--json]");
  });

  it.skipIf(process.env.TEST_DATABASE_URL)("refuses to create a new SQLite database, and names the one it looked for", async () => {
    const missing = path.join(dataDir, "typo");
    const r = await runCli(["list-users"], cliEnv({ PARLEY_DATA_DIR: missing }));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `parley: using SQLite database ${missing}/parley.sqlite3 (PARLEY_DATA_DIR=${missing})\n` +
        `parley: no database at ${missing}/parley.sqlite3: set PARLEY_DATA_DIR to the server's data folder (or DATABASE_URL), or create one with 'parley create-realm'\n`,
    );
    expect(fs.existsSync(missing)).toBe(false);
  });

  it("refuses a DATABASE_URL that is not postgres://, naming the problem, never the password", async () => {
    const results = await Promise.all(
      ["not-a-url", "sqlite:///tmp/x.db", "mysql://root:s3cret@db.example/chat"].map((url) => runCli(["list-realms"], cliEnv({ DATABASE_URL: url }))),
    );
    expect(results.map((r) => [r.code, r.stdout, r.stderr])).toEqual([
      [1, "", "parley: DATABASE_URL is not a URL ('not-a-url'); expected postgres://USER:PASSWORD@HOST:PORT/DATABASE, or leave it unset to use SQLite in PARLEY_DATA_DIR\n"],
      [1, "", "parley: DATABASE_URL must start with postgres:// or postgresql:// (got sqlite://…): only PostgreSQL is supported by URL; for SQLite leave DATABASE_URL unset and set PARLEY_DATA_DIR\n"],
      [1, "", "parley: DATABASE_URL must start with postgres:// or postgresql:// (got mysql://…): only PostgreSQL is supported by URL\n"],
    ]);
  });
});

describe("administration", () => {
  let ownerPassword: string;

  it("creates an organization and users, roles by name or number", async () => {
    const realm = JSON.parse(expectOk(await parley("create-realm", "--name", "Acme", "--owner-email", "owner@acme.test", "--owner-name", "Olive Owner", "--json")));
    expect(realm).toMatchObject({ realm_id: expect.any(Number), email: "owner@acme.test", api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
    ownerPassword = realm.password;
    // One after the other: the listing below is in id order.
    const admin = await parley("create-user", "--email", "ada@acme.test", "--full-name", "Ada Admin", "--role", "admin", "--password", "ada-password-1");
    const mod = await parley("create-user", "--email", "mo@acme.test", "--full-name", "Mo Mod", "--role", "300");
    expect(JSON.parse(expectOk(admin))).not.toHaveProperty("password");
    expect(JSON.parse(expectOk(mod))).toHaveProperty("password");
    const users = JSON.parse(expectOk(await parley("list-users", "--json")));
    expect(users.map((u: { email: string; role: number; role_name: string; is_active: boolean }) => [u.email, u.role, u.role_name, u.is_active])).toEqual([
      ["owner@acme.test", 100, "owner", true],
      ["ada@acme.test", 200, "administrator", true],
      ["mo@acme.test", 300, "moderator", true],
    ]);
    const realms = JSON.parse(expectOk(await parley("list-realms", "--json")));
    expect(realms).toEqual([{ id: realm.realm_id, subdomain: "", url: "http://localhost:9991", name: "Acme", deactivated: false }]);
  });

  it("changes roles through the same rules as the API", async () => {
    expect(expectOk(await parley("change-role", "--email", "mo@acme.test", "--role", "Guest"))).toBe("mo@acme.test is now guest (600); was moderator (300).\n");
    const last = await parley("change-role", "--email", "owner@acme.test", "--role", "member");
    expect(last.code).toBe(1);
    expect(last.stderr.split("\n").slice(1)).toEqual(["parley: The owner permission cannot be removed from the only organization owner.", ""]);
    const unknown = await parley("change-role", "--email", "nobody@acme.test", "--role", "member");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("parley: no user 'nobody@acme.test' in organization ''\n");
    const roles = await database().selectFrom("users").select(["delivery_email", "role"]).where("delivery_email", "in", ["mo@acme.test", "owner@acme.test"]).orderBy("id").execute();
    expect(roles).toEqual([{ delivery_email: "owner@acme.test", role: 100 }, { delivery_email: "mo@acme.test", role: 600 }]);
  });

  it("deactivates and reactivates a user", async () => {
    expect(expectOk(await parley("deactivate-user", "--email", "ada@acme.test"))).toBe("ada@acme.test is deactivated.\n");
    const active = async () => (await database().selectFrom("users").select("is_active").where("delivery_email", "=", "ada@acme.test").executeTakeFirstOrThrow()).is_active;
    expect(await active()).toBe(0);
    const again = await parley("deactivate-user", "--email", "ada@acme.test");
    expect(again.code).toBe(1);
    expect(expectOk(await parley("reactivate-user", "--email", "ada@acme.test"))).toBe("ada@acme.test is reactivated.\n");
    expect(await active()).toBe(1);
    const twice = await parley("reactivate-user", "--email", "ada@acme.test");
    expect(twice.stderr).toContain("parley: User is already active.\n");
  });

  it("resets a password, printed or mailed to the outbox", async () => {
    const printed = JSON.parse(expectOk(await parley("reset-password", "--email", "ada@acme.test", "--json")));
    expect(printed).toMatchObject({ email: "ada@acme.test", password: expect.any(String) });
    const hash = async () => (await database().selectFrom("users").select("password_hash").where("delivery_email", "=", "ada@acme.test").executeTakeFirstOrThrow()).password_hash;
    expect(await verifyPassword(printed.password, await hash())).toBe(true);
    expect(await verifyPassword("ada-password-1", await hash())).toBe(false);

    const mailed = expectOk(await parley("reset-password", "--email", "ada@acme.test", "--mail"));
    expect(mailed).toMatch(/^New password for ada@acme\.test mailed to the outbox \(.+\.eml\)\.\n$/);
    const outbox = await runCli(["outbox", "--json"], env);
    expect(outbox.code).toBe(0);
    expect(outbox.stderr).toBe(`parley: using the data folder ${dataDir} (PARLEY_DATA_DIR=${dataDir})\n`);
    const entries = JSON.parse(outbox.stdout);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ to: "ada@acme.test", subject: "Your new password for Acme" });
    const message = (await runCli(["outbox", entries[0].file], env)).stdout;
    const sent = /Your new password: (\S+)/.exec(message.replace(/=\r?\n/g, ""))?.[1];
    expect(await verifyPassword(sent!, await hash())).toBe(true);
    expect(ownerPassword).toBeTruthy();
  });

  it("records a lock-out clear for the server to consume", async () => {
    expect(expectOk(await parley("clear-lockout", "--email", "ADA@acme.test"))).toBe("Login lock-out cleared for ada@acme.test.\n");
    const rows = await database().selectFrom("login_lockout_clears").select(["email", "cleared_at"]).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.email).toBe("ada@acme.test");
    expect(Math.abs(Number(rows[0]!.cleared_at) - Date.now() / 1000)).toBeLessThan(60);
  });
});

describe("export and import", () => {
  it("round-trips an organization into a new subdomain, usable through the API", async () => {
    // Some content, written through the API of an app on the same database.
    const config = loadConfig(env);
    const ctx = contextFor(config, database());
    const app = await buildApp(ctx);
    const owner = await database().selectFrom("users").selectAll().where("delivery_email", "=", "owner@acme.test").executeTakeFirstOrThrow();
    const auth = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`;
    const post = (url: string, payload: Record<string, string>, host = "localhost:9991", who = auth(owner.delivery_email, owner.api_key)) =>
      injectChecked(app, { method: "POST", url, payload: new URLSearchParams(payload).toString(), headers: { host, authorization: who, "content-type": "application/x-www-form-urlencoded" } });
    const channel = await database().selectFrom("channels").select(["id", "name"]).where("realm_id", "=", owner.realm_id).orderBy("id").executeTakeFirstOrThrow();
    const sent = await post("/api/v1/messages", { type: "stream", to: channel.name, topic: "launch", content: "Hello **all**" });
    expect(sent.json()).toMatchObject({ result: "success" });
    const dm = await post("/api/v1/messages", { type: "private", to: JSON.stringify(["ada@acme.test"]), content: "psst" });
    expect(dm.json()).toMatchObject({ result: "success" });
    const ada = await database().selectFrom("users").select("id").where("delivery_email", "=", "ada@acme.test").executeTakeFirstOrThrow();
    await database().insertInto("reactions").values({ realm_id: owner.realm_id, message_id: sent.json().id, user_id: ada.id, emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji" }).execute();
    await app.close();

    const file = path.join(dataDir, "acme.json");
    expect(expectOk(await parley("export-realm", "--output", file))).toBe(`Exported organization '' to ${file}: 4 users, 1 channels, 2 messages, 1 reactions.\n`);
    const again = await parley("export-realm", "--output", file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`parley: ${file} exists; give --force to overwrite it\n`);
    const taken = await parley("import-realm", "--input", file);
    expect(taken.stderr).toContain("parley: subdomain '' is already in use; choose another with --subdomain\n");
    expect(expectOk(await parley("import-realm", "--input", file, "--subdomain", "copy"))).toMatch(/^Imported organization \d+ as 'copy': 4 users, 1 channels, 2 messages, 1 reactions\.\n$/);

    // The copy works through the API: its users log in with their passwords, see the messages.
    const copyApp = await buildApp(contextFor(config, database()));
    try {
      const host = "copy.localhost:9991";
      const login = await injectChecked(copyApp, { method: "POST", url: "/api/v1/fetch_api_key", payload: "username=ada%40acme.test&password=x", headers: { host, "content-type": "application/x-www-form-urlencoded" } });
      expect(login.json()).toMatchObject({ result: "error", code: "AUTHENTICATION_FAILED" });
      const copyAda = await database().selectFrom("users").selectAll().where("delivery_email", "=", "ada@acme.test").where("realm_id", "!=", owner.realm_id).executeTakeFirstOrThrow();
      expect(copyAda.api_key).not.toBe((await database().selectFrom("users").select("api_key").where("id", "=", ada.id).executeTakeFirstOrThrow()).api_key);
      const res = await injectChecked(copyApp, {
        method: "GET",
        url: `/api/v1/messages?anchor=newest&num_before=10&num_after=0`,
        headers: { host, authorization: auth("ada@acme.test", copyAda.api_key) },
      });
      const body = res.json();
      expect(body.result).toBe("success");
      const messages = body.messages as Array<{ content: string; display_recipient: unknown; reactions: Array<{ emoji_name: string; user_id: number }>; sender_email: string; id: number }>;
      expect(messages.map((m) => m.content)).toEqual(["<p>Hello <strong>all</strong></p>", "<p>psst</p>"]);
      expect(messages[0]!.display_recipient).toBe(channel.name);
      expect(messages[0]!.reactions).toEqual([expect.objectContaining({ emoji_name: "tada", user_id: copyAda.id })]);
      expect((messages[1]!.display_recipient as Array<{ email: string }>).map((r) => r.email).sort()).toHaveLength(2);
      expect(messages[0]!.id).not.toBe(sent.json().id);
      const realms = JSON.parse(expectOk(await parley("list-realms", "--json")));
      expect(realms.map((r: { subdomain: string }) => r.subdomain)).toEqual(["", "copy"]);
    } finally {
      await copyApp.close();
    }
  });

  it("refuses a file that is not an archive", async () => {
    const file = path.join(dataDir, "not-an-archive.json");
    fs.writeFileSync(file, JSON.stringify({ hello: 1 }));
    const r = await parley("import-realm", "--input", file, "--subdomain", "x");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`parley: ${file}: not an organization archive made by 'parley export-realm'\n`);
  });
});
