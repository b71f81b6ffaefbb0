/** Declares one vitest case per row of a share of the authorization table, on one shared world. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../src/http/routes.js";
import { outcomeOf, routeKey, runRow, type Row } from "./authz-run.js";
import { startAuthzWorld, type World } from "./authz-world.js";

/** A path for any route (its segments filled with something that parses). */
function samplePath(path: string): string {
  return path.replace(/\{\w+:int\}/g, "1").replace(/\{\w+\*?\}/g, "x");
}

/** Rows that hash passwords on every call (several times slower than the rest). */
const slow = (row: Row) => row.route === "POST /fetch_api_key" || row.route === "POST /users" || row.object.includes("password");

/** Share `part` (0-based) of `parts`: rows dealt to the lightest share, in table order. */
export function share(rows: Row[], part: number, parts: number): Row[] {
  const load = new Array<number>(parts).fill(0);
  return rows.filter((row) => {
    const lightest = load.indexOf(Math.min(...load));
    load[lightest] += slow(row) ? 8 : 1;
    return lightest === part;
  });
}

export function authzSuite(title: string, rows: Row[], opts: { wrongHost?: boolean } = {}): void {
  let w: World;
  beforeAll(async () => {
    w = await startAuthzWorld();
  }, 60_000);
  afterAll(() => w?.s.close());
  describe(title, () => {
    for (const row of rows) it(`${row.route} [${row.object}]`, () => runRow(w, row));
    if (opts.wrongHost) {
      it("another organization's credentials on this organization's host are refused by every route that reads credentials", async () => {
        for (const r of allRoutes) {
          const res = await w.s.api.call(r.method, w.callers.foreign.user, samplePath(r.path), {}, { host: w.s.realm.host });
          const expected = r.auth === "none" ? res.statusCode !== 401 : outcomeOf(res);
          if (r.auth === "none") expect(expected, routeKey(r)).toBe(true);
          else expect(expected, routeKey(r)).toEqual({ msg: "Account is not associated with this subdomain", code: "UNAUTHORIZED", status: 401 });
        }
      });
    }
  });
}
