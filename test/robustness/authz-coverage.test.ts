/**
 * Every route of src/http/routes.ts has at least one row in the authorization table, and
 * every row names a real route, so a new endpoint cannot skip the matrix.
 */
import { describe, expect, it } from "vitest";
import { allRoutes } from "../../src/http/routes.js";
import { ROLES } from "../support/authz-world.js";
import { routeKey } from "../support/authz-run.js";
import { authzRows } from "./authz-table.js";

describe("authorization table coverage", () => {
  const rows = authzRows();
  const inTable = new Set(rows.map((r) => r.route));
  const routes = new Set(allRoutes.map(routeKey));

  it("has a row for every route", () => {
    expect([...routes].filter((r) => !inTable.has(r)), "routes missing from test/robustness/authz-table.ts").toEqual([]);
  });

  it("names only existing routes", () => {
    expect([...inTable].filter((r) => !routes.has(r))).toEqual([]);
  });

  it("gives every row an outcome for every role, and each (route, object) once", () => {
    for (const r of rows) expect(Object.keys(r.expect).sort(), `${r.route} [${r.object}]`).toEqual([...ROLES].sort());
    const keys = rows.map((r) => `${r.route} [${r.object}]`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });
});
