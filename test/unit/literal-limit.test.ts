/**
 * Fixed LIMITs are written into the SQL text (src/db/compiled.ts literalLimit): only row
 * counts are accepted, the statement says its limit, and a query made with it keeps the
 * rows the limit keeps (here /register's newest drafts) on either engine.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { literalLimit } from "../../src/db/compiled.js";
import { insertDrafts, newestDraftsQuery } from "../../src/db/queries/drafts.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("literalLimit", () => {
  it("takes row counts only", () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) expect(() => literalLimit(bad), String(bad)).toThrow(/not a row count/);
    expect(literalLimit(0)).toBeDefined();
  });

  it("writes the limit into the statement, and the query keeps the newest rows up to it", async () => {
    const { realm, member } = s.realm;
    const draft = (content: string, last_edit_time: number) => ({ realm_id: realm.id, user_id: member.id, type: "", content, last_edit_time });
    await insertDrafts(s.db, [draft("oldest", 100), draft("newest", 300), draft("middle", 200)]);
    const newestTwo = newestDraftsQuery(2);
    expect((await newestTwo(s.db, realm.id, member.id)).map((d) => d.content)).toEqual(["newest", "middle"]);
    const compiled = s.db.selectFrom("drafts").select("id").limit(literalLimit(2)).compile();
    expect(compiled.sql).toMatch(/limit 2$/);
    expect(compiled.parameters).toEqual([]);
  });
});
