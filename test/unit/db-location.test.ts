import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { databaseUrlProblem, describeDatabase } from "../../src/db/location.js";

describe("DATABASE_URL", () => {
  it("accepts postgres:// and postgresql:// URLs", () => {
    expect(databaseUrlProblem("postgres://u:p@db:5433/chat")).toBeUndefined();
    expect(databaseUrlProblem("postgresql://db/chat")).toBeUndefined();
    expect(databaseUrlProblem("postgres:///chat?host=/var/run/postgresql")).toBeUndefined();
  });

  it("names what is wrong with anything else, never echoing a password", () => {
    expect(databaseUrlProblem("not-a-url")).toMatch(/^DATABASE_URL is not a URL \('not-a-url'\)/);
    expect(databaseUrlProblem("db:secret@host")).not.toContain("secret");
    expect(databaseUrlProblem("sqlite:///tmp/x.db")).toContain("for SQLite leave DATABASE_URL unset and set PARLEY_DATA_DIR");
    expect(databaseUrlProblem("mysql://root:s3cret@db/chat")).toBe("DATABASE_URL must start with postgres:// or postgresql:// (got mysql://…): only PostgreSQL is supported by URL");
    expect(databaseUrlProblem("postgres:///chat")).toBe("DATABASE_URL names no host; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE");
    expect(() => loadConfig({ DATABASE_URL: "mysql://x/y" })).toThrow(ConfigError);
  });

  it("describes the database without credentials", () => {
    expect(describeDatabase("postgres://admin:hunter2@db.internal:5433/parley", "./data")).toBe("PostgreSQL database parley on db.internal:5433");
    expect(describeDatabase("postgresql://db.internal/parley", "./data")).toBe("PostgreSQL database parley on db.internal:5432");
    expect(describeDatabase(undefined, "/srv/parley")).toBe("SQLite database /srv/parley/parley.sqlite3");
  });
});
