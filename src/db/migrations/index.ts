/** The ordered list of migrations; append new ones, never reorder or edit applied ones. */
import type { Migration, MigrationProvider } from "kysely";
import * as m0001 from "./0001-initial.js";

const migrations: Record<string, Migration> = {
  "0001-initial": m0001,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
