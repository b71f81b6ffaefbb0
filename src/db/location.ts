/**
 * Where the database lives, shared by the server and the CLI: the SQLite file under the
 * data folder, or a PostgreSQL URL. Describes it for logs without ever showing a password.
 */
import path from "node:path";

export const SQLITE_FILE_NAME = "parley.sqlite3";

export function sqlitePathFor(dataDir: string): string {
  return path.join(dataDir, SQLITE_FILE_NAME);
}

/**
 * Why `url` cannot be a DATABASE_URL, or undefined when it is a usable postgres:// or
 * postgresql:// URL. Other schemes (sqlite:, mysql:, a bare word) are refused by name, so a
 * mistake never falls through to a misleading connection error.
 */
export function databaseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `DATABASE_URL is not a URL ('${redact(url)}'); expected postgres://USER:PASSWORD@HOST:PORT/DATABASE, or leave it unset to use SQLite in PARLEY_DATA_DIR`;
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    const hint = parsed.protocol === "sqlite:" ? "; for SQLite leave DATABASE_URL unset and set PARLEY_DATA_DIR" : "";
    return `DATABASE_URL must start with postgres:// or postgresql:// (got ${parsed.protocol}//…): only PostgreSQL is supported by URL${hint}`;
  }
  if (!parsed.hostname && !parsed.searchParams.get("host")) return "DATABASE_URL names no host; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE";
  return undefined;
}

/** "PostgreSQL database NAME on HOST:PORT" or "SQLite database /abs/path": no credentials. */
export function describeDatabase(databaseUrl: string | undefined, dataDir: string): string {
  if (databaseUrl === undefined) return `SQLite database ${path.resolve(sqlitePathFor(dataDir))}`;
  const u = new URL(databaseUrl);
  const host = u.hostname || u.searchParams.get("host") || "localhost";
  const name = decodeURIComponent(u.pathname.replace(/^\//, "")) || "(default)";
  return `PostgreSQL database ${name} on ${host}:${u.port || "5432"}`;
}

/** A URL-ish string with anything that looks like a password blanked. */
function redact(text: string): string {
  return text.replace(/:\/\/([^:/@]*):[^@]*@/, "://$1:***@");
}
