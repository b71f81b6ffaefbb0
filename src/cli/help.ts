/** The texts of `parley --help` and `parley help COMMAND`. */
import fs from "node:fs";
import type { Command } from "./command.js";

const CONFIGURATION = `Configuration (the same environment as the server; run commands with the server's values):
  PARLEY_DATA_DIR   data folder: SQLite database, outbox, lock file (default ./data)
  DATABASE_URL      postgres://USER:PASSWORD@HOST:PORT/DB to use PostgreSQL instead of SQLite
  PORT, HOST, PARLEY_EXTERNAL_HOST, PARLEY_SMTP_URL, PARLEY_MAIL_FROM, LOG_LEVEL: see README
Every command names the database it uses on stderr first; commands other than serve,
migrate and create-realm refuse to create a new SQLite database.`;

export function globalUsage(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
  return `Usage: parley <command> [options]
       parley help <command>     options of one command
       parley --version

Commands:
${lines.join("\n")}

${CONFIGURATION}
`;
}

export function commandUsage(c: Command): string {
  return `Usage: parley ${c.name}${c.synopsis ? ` ${c.synopsis}` : ""}\n${c.summary}.\n${c.details ? `${c.details}\n` : ""}`;
}

/** The version in package.json (dist/src/cli/ or src/cli/ → the package root). */
export function packageVersion(): string {
  for (const rel of ["../../../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(fs.readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "parley" && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return "unknown";
}
