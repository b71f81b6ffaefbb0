import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
const events: PublishedEvent[] = [];

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((e) => events.push(e));
});
afterAll(() => s.close());

const rows = () =>
  s.db.selectFrom("linkifiers").select(["id", "realm_id", "pattern", "url_template", "order"]).where("realm_id", "=", s.realm.realm.id).orderBy("order").orderBy("id").execute();
const allRows = () => s.db.selectFrom("linkifiers").selectAll().orderBy("id").execute();
const NOT_LOGGED_IN = "Not logged in: API authentication or user session required";

describe("POST /realm/filters", () => {
  it("adds a linkifier (stripped), announcing the full list to every active user", async () => {
    events.length = 0;
    const body = expectSuccess(await s.api.post(s.realm.admin, "/realm/filters", { pattern: " #(?P<id>[0-9]+) ", url_template: " https://trac.example.com/ticket/{id} " }));
    expect(body).toEqual({ result: "success", msg: "", id: expect.any(Number) });
    expect(await rows()).toEqual([{ id: body.id, realm_id: s.realm.realm.id, pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}", order: 0 }]);
    const ev = events.find((e) => e.event.type === "realm_linkifiers")!;
    expect(ev.event).toEqual({
      type: "realm_linkifiers",
      realm_linkifiers: [{ pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}", id: body.id }],
    });
    const { owner, admin, moderator, member, other, guest, bot } = s.realm;
    expect([...ev.userIds].sort((a, b) => a - b)).toEqual([owner, admin, moderator, member, other, guest, bot].map((u) => u.id).sort((a, b) => a - b));
    const second = expectSuccess(await s.api.post(s.realm.owner, "/realm/filters", { pattern: "GH-(?P<n>\\d+)", url_template: "https://github.com/o/r/issues/{n}" }));
    expect((await rows()).map((r) => [r.id, r.order])).toEqual([
      [body.id, 0],
      [second.id, 1],
    ]);
  });

  it("is for administrators only, checked before parameters", async () => {
    const before = await allRows();
    for (const user of [s.realm.moderator, s.realm.member, s.realm.guest, s.realm.bot]) {
      expectError(await s.api.post(user, "/realm/filters", {}), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    }
    expectError(await s.api.post(null, "/realm/filters", { pattern: "a", url_template: "b" }), NOT_LOGGED_IN, { status: 401, code: "UNAUTHORIZED" });
    expect(await allRows()).toEqual(before);
  });

  it("validates with upstream's messages and an errors object", async () => {
    const before = await allRows();
    const post = (params: Record<string, unknown>) => s.api.post(s.realm.admin, "/realm/filters", params);
    expectError(await post({ url_template: "x" }), "Missing 'pattern' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ pattern: "x" }), "Missing 'url_template' argument", { code: "REQUEST_VARIABLE_MISSING" });
    const blank = expectError(await post({ pattern: "  ", url_template: "https://x.example/{id}" }), "This field cannot be blank.");
    // Upstream's model clean() runs even after a field error, so the group check reports too.
    expect(blank.errors).toEqual({
      pattern: ["This field cannot be blank."],
      __all__: ["Group 'id' in URL template is not present in linkifier pattern."],
    });
    const badRe = expectError(await post({ pattern: "(foo", url_template: "https://x.example/" }), "Bad regular expression: missing ): (foo");
    expect(badRe.errors).toEqual({ __all__: ["Bad regular expression: missing ): (foo"] });
    const badTemplate = expectError(await post({ pattern: "#(?P<id>\\d+)", url_template: "https://x.example/{id" }), "Invalid URL template.");
    expect(badTemplate.errors).toEqual({ url_template: ["Invalid URL template."] });
    expectError(
      await post({ pattern: "#(?P<id>\\d+)", url_template: "https://x.example/{hello}" }),
      "Group 'hello' in URL template is not present in linkifier pattern.",
    );
    expectError(await post({ pattern: "#(?P<id>\\d+)", url_template: "https://x.example/$fgfg" }), "Group 'id' in linkifier pattern is not present in URL template.");
    const dup = expectError(await post({ pattern: "#(?P<id>[0-9]+)", url_template: "https://other.example/{id}" }), "Realm filter with this Realm and Pattern already exists.");
    expect(dup.errors).toEqual({ __all__: ["Realm filter with this Realm and Pattern already exists."] });
    expect(await allRows()).toEqual(before);
  });

  it("allows the same pattern in another organization", async () => {
    const body = expectSuccess(await s.api.post(s.other.admin, "/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://other.example/{id}" }));
    const row = await s.db.selectFrom("linkifiers").selectAll().where("id", "=", body.id).executeTakeFirstOrThrow();
    expect(row.realm_id).toBe(s.other.realm.id);
  });
});

describe("GET /realm/linkifiers", () => {
  it("lists the realm's linkifiers in order, for every role", async () => {
    const mine = await rows();
    for (const user of [s.realm.guest, s.realm.member, s.realm.bot]) {
      const body = expectSuccess(await s.api.get(user, "/realm/linkifiers"));
      expect(body.linkifiers).toEqual(mine.map((r) => ({ pattern: r.pattern, url_template: r.url_template, id: r.id })));
    }
    expectError(await s.api.get(null, "/realm/linkifiers"), NOT_LOGGED_IN, { status: 401, code: "UNAUTHORIZED" });
  });
});

describe("PATCH /realm/filters/{filter_id}", () => {
  it("updates a linkifier", async () => {
    const [first] = await rows();
    events.length = 0;
    expectSuccess(await s.api.patch(s.realm.admin, `/realm/filters/${first!.id}`, { pattern: "#(?P<num>\\d+)", url_template: "https://t.example/{num}" }));
    expect((await rows())[0]).toMatchObject({ id: first!.id, pattern: "#(?P<num>\\d+)", url_template: "https://t.example/{num}", order: 0 });
    expect(events.some((e) => e.event.type === "realm_linkifiers")).toBe(true);
  });

  it("rejects non-admins, unknown ids, other realms' ids and invalid values", async () => {
    const before = await allRows();
    const [first, second] = await rows();
    const otherId = (await s.db.selectFrom("linkifiers").select("id").where("realm_id", "=", s.other.realm.id).executeTakeFirstOrThrow()).id;
    const params = { pattern: "x(?P<a>\\d)", url_template: "https://y.example/{a}" };
    expectError(await s.api.patch(s.realm.member, `/realm/filters/${first!.id}`, params), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await s.api.patch(s.realm.admin, "/realm/filters/999999", params), "Linkifier not found.");
    expectError(await s.api.patch(s.realm.admin, `/realm/filters/${otherId}`, params), "Linkifier not found.");
    expectError(await s.api.patch(s.realm.admin, `/realm/filters/${first!.id}`, { pattern: "x" }), "Missing 'url_template' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.patch(s.realm.admin, `/realm/filters/${first!.id}`, { pattern: second!.pattern, url_template: second!.url_template }), "Realm filter with this Realm and Pattern already exists.");
    expectError(await s.api.patch(s.realm.admin, `/realm/filters/${first!.id}`, { pattern: "(?P<a>x", url_template: "https://y.example/{a}" }), "Bad regular expression: missing ): (?P<a>x");
    expect(await allRows()).toEqual(before);
  });
});

describe("PATCH /realm/linkifiers", () => {
  it("reorders the linkifiers", async () => {
    const third = expectSuccess(await s.api.post(s.realm.admin, "/realm/filters", { pattern: "T(?P<t>\\d+)", url_template: "https://t3.example/{t}" }));
    const ids = (await rows()).map((r) => r.id);
    const wanted = [third.id, ids[0]!, ids[1]!];
    events.length = 0;
    expectSuccess(await s.api.patch(s.realm.admin, "/realm/linkifiers", { ordered_linkifier_ids: wanted }));
    expect((await rows()).map((r) => r.id)).toEqual(wanted);
    const ev = events.find((e) => e.event.type === "realm_linkifiers")!;
    expect((ev.event.realm_linkifiers as Array<{ id: number }>).map((l) => l.id)).toEqual(wanted);
    expect(expectSuccess(await s.api.get(s.realm.member, "/realm/linkifiers")).linkifiers.map((l: any) => l.id)).toEqual(wanted);
  });

  it("rejects duplicated, incomplete or foreign lists, and non-admins", async () => {
    const before = await allRows();
    const ids = (await rows()).map((r) => r.id);
    const otherId = (await s.db.selectFrom("linkifiers").select("id").where("realm_id", "=", s.other.realm.id).executeTakeFirstOrThrow()).id;
    const patch = (user: typeof s.realm.admin, list: unknown) => s.api.patch(user, "/realm/linkifiers", { ordered_linkifier_ids: list });
    expectError(await patch(s.realm.admin, [...ids, ids[0]]), "The ordered list must not contain duplicated linkifiers");
    expectError(await patch(s.realm.admin, ids.slice(0, 2)), "The ordered list must enumerate all existing linkifiers exactly once");
    expectError(await patch(s.realm.admin, [...ids, otherId]), "The ordered list must enumerate all existing linkifiers exactly once");
    expectError(await patch(s.realm.admin, "nope"), "ordered_linkifier_ids is not valid JSON");
    expectError(await patch(s.realm.admin, ["a"]), "ordered_linkifier_ids[0] is not an integer");
    expectError(await patch(s.realm.moderator, ids), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expect(await allRows()).toEqual(before);
  });
});

describe("DELETE /realm/filters/{filter_id}", () => {
  it("removes a linkifier, keeping the others' order", async () => {
    const before = await rows();
    events.length = 0;
    expectSuccess(await s.api.delete(s.realm.admin, `/realm/filters/${before[1]!.id}`));
    expect((await rows()).map((r) => r.id)).toEqual([before[0]!.id, before[2]!.id]);
    expect(events.find((e) => e.event.type === "realm_linkifiers")!.event.realm_linkifiers).toHaveLength(2);
  });

  it("rejects non-admins, unknown and foreign ids", async () => {
    const before = await allRows();
    const [first] = await rows();
    const otherId = (await s.db.selectFrom("linkifiers").select("id").where("realm_id", "=", s.other.realm.id).executeTakeFirstOrThrow()).id;
    expectError(await s.api.delete(s.realm.member, `/realm/filters/${first!.id}`), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await s.api.delete(s.realm.guest, `/realm/filters/${first!.id}`), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await s.api.delete(s.realm.admin, "/realm/filters/999999"), "Linkifier not found.");
    expectError(await s.api.delete(s.realm.admin, `/realm/filters/${otherId}`), "Linkifier not found.");
    expectError(await s.api.delete(null, `/realm/filters/${first!.id}`), NOT_LOGGED_IN, { status: 401, code: "UNAUTHORIZED" });
    expect(await allRows()).toEqual(before);
  });
});
