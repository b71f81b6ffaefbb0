import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let published: PublishedEvent[] = [];
const ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  for (const [name, author] of [["green_tick", s.realm.member], ["red_cross", s.realm.owner], ["old", s.realm.owner]] as const) {
    ids[name] = (await s.db.insertInto("realm_emoji").values({ realm_id: s.realm.realm.id, name, file_name: `${name}.png`, author_id: author.id, deactivated: name === "old" ? 1 : 0 }).returning("id").executeTakeFirstOrThrow()).id;
  }
  await s.db.insertInto("realm_emoji").values({ realm_id: s.other.realm.id, name: "elsewhere", file_name: "e.png", author_id: s.other.owner.id }).execute();
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const record = (name: string, deactivated: boolean, authorId: number) => ({
  id: String(ids[name]),
  name,
  source_url: `/user_avatars/${s.realm.realm.id}/emoji/images/${name}.png`,
  still_url: null,
  deactivated,
  author_id: authorId,
});

describe("GET /realm/emoji", () => {
  it("lists the organization's custom emoji by id, deactivated ones included", async () => {
    expect(expectSuccess(await s.api.get(s.realm.guest, "/realm/emoji"))).toEqual({
      result: "success",
      msg: "",
      emoji: {
        [ids.green_tick]: record("green_tick", false, s.realm.member.id),
        [ids.red_cross]: record("red_cross", false, s.realm.owner.id),
        [ids.old]: record("old", true, s.realm.owner.id),
      },
    });
  });
});

describe("DELETE /realm/emoji/{emoji_name}", () => {
  it("its author deactivates it; a realm_emoji event carries the whole map to every active user", async () => {
    const { member } = s.realm;
    expect(expectSuccess(await s.api.delete(member, "/realm/emoji/green_tick"))).toEqual({ result: "success", msg: "" });
    const row = await s.db.selectFrom("realm_emoji").select("deactivated").where("id", "=", ids.green_tick).executeTakeFirstOrThrow();
    expect(row.deactivated).toBe(1);
    expect(published).toHaveLength(1);
    expect(published[0].event).toEqual({
      type: "realm_emoji",
      op: "update",
      realm_emoji: {
        [ids.green_tick]: record("green_tick", true, member.id),
        [ids.red_cross]: record("red_cross", false, s.realm.owner.id),
        [ids.old]: record("old", true, s.realm.owner.id),
      },
    });
    expect(published[0].userIds).toEqual(expect.arrayContaining([s.realm.guest.id, s.realm.owner.id]));
    expect(published[0].userIds).not.toContain(s.other.owner.id);
  });

  it("others need to be administrators; unknown, deactivated and other-realm emoji do not exist", async () => {
    const before = await s.db.selectFrom("realm_emoji").selectAll().orderBy("id").execute();
    expectError(await s.api.delete(s.realm.member, "/realm/emoji/red_cross"), "Must be an organization administrator or emoji author");
    expectError(await s.api.delete(s.realm.moderator, "/realm/emoji/red_cross"), "Must be an organization administrator or emoji author");
    expectError(await s.api.delete(s.realm.admin, "/realm/emoji/nope"), "Emoji 'nope' does not exist", { status: 404 });
    expectError(await s.api.delete(s.realm.admin, "/realm/emoji/old"), "Emoji 'old' does not exist", { status: 404 });
    expectError(await s.api.delete(s.realm.admin, "/realm/emoji/elsewhere"), "Emoji 'elsewhere' does not exist", { status: 404 });
    expect(await s.db.selectFrom("realm_emoji").selectAll().orderBy("id").execute()).toEqual(before);
    expect(published).toEqual([]);
    expectSuccess(await s.api.delete(s.realm.admin, "/realm/emoji/red_cross"));
  });
});
