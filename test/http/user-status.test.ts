import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { User } from "../../src/db/schema.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let emojiId: number;

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  emojiId = (await s.db.insertInto("realm_emoji").values({ realm_id: s.realm.realm.id, name: "green_tick", file_name: "g.png", author_id: s.realm.owner.id }).returning("id").executeTakeFirstOrThrow()).id;
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const statusRow = (user: User) => s.db.selectFrom("user_status").select(["status_text", "emoji_name", "emoji_code", "reaction_type"]).where("user_id", "=", user.id).executeTakeFirst();
const allRows = () => s.db.selectFrom("user_status").selectAll().orderBy("user_id").execute();

async function expectStatusError(res: Promise<import("fastify").LightMyRequestResponse>, msg: string, code = "BAD_REQUEST") {
  const before = await allRows();
  expectError(await res, msg, { code });
  expect(await allRows()).toEqual(before);
  expect(published).toEqual([]);
}

describe("POST /users/me/status", () => {
  it("sets text (stripped) and emoji by name, each changed only when passed, with user_status events", async () => {
    const { member, guest, owner } = s.realm;
    expect(expectSuccess(await s.api.post(member, "/users/me/status", { status_text: "  in a meeting  " }))).toEqual({ result: "success", msg: "" });
    expect(await statusRow(member)).toEqual({ status_text: "in a meeting", emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" });
    expect(published.map((p) => p.event)).toEqual([{ type: "user_status", user_id: member.id, status_text: "in a meeting" }]);
    expect(published[0].userIds).toEqual(expect.arrayContaining([owner.id, member.id, guest.id]));
    expect(published[0].userIds).not.toContain(s.other.owner.id);
    published = [];
    expectSuccess(await s.api.post(member, "/users/me/status", { emoji_name: "car" }));
    expect(await statusRow(member)).toEqual({ status_text: "in a meeting", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" });
    expect(published.map((p) => p.event)).toEqual([{ type: "user_status", user_id: member.id, emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" }]);
    expect(expectSuccess(await s.api.get(other(), `/users/${member.id}/status`))).toEqual({
      result: "success",
      msg: "",
      status: { status_text: "in a meeting", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" },
    });
    // Empty values clear.
    expectSuccess(await s.api.post(member, "/users/me/status", { status_text: "", emoji_name: "" }));
    expect(await statusRow(member)).toEqual({ status_text: "", emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" });
    expect(expectSuccess(await s.api.get(other(), `/users/${member.id}/status`)).status).toEqual({});
  });

  it("custom and extra emoji, explicit codes", async () => {
    const { other: u } = s.realm;
    expectSuccess(await s.api.post(u, "/users/me/status", { emoji_name: "green_tick" }));
    expect(await statusRow(u)).toMatchObject({ emoji_name: "green_tick", emoji_code: String(emojiId), reaction_type: "realm_emoji" });
    expectSuccess(await s.api.post(u, "/users/me/status", { emoji_name: "parley", emoji_code: "parley", reaction_type: "chat_extra_emoji" }));
    expect(await statusRow(u)).toMatchObject({ emoji_name: "parley", emoji_code: "parley", reaction_type: "chat_extra_emoji" });
    expectSuccess(await s.api.post(u, "/users/me/status", { emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" }));
    expect(await statusRow(u)).toMatchObject({ emoji_name: "smile", emoji_code: "1f642" });
  });

  it("errors, in upstream's order, change nothing", async () => {
    const { member } = s.realm;
    const post = (params: Record<string, unknown>) => s.api.post(member, "/users/me/status", params);
    await expectStatusError(post({}), "Client did not pass any new values.");
    await expectStatusError(post({ emoji_code: "1f697" }), "Client did not pass any new values.");
    await expectStatusError(post({ status_text: "x", emoji_code: "1f697" }), "Client must pass emoji_name if they pass either emoji_code or reaction_type.");
    await expectStatusError(post({ status_text: "x".repeat(61) }), "status_text is too long (limit: 60 characters)");
    await expectStatusError(post({ emoji_name: "no_such_emoji" }), "Emoji 'no_such_emoji' does not exist");
    await expectStatusError(post({ emoji_name: "car", emoji_code: "1f44d", reaction_type: "unicode_emoji" }), "Invalid emoji name.");
    await expectStatusError(post({ emoji_name: "car", emoji_code: "zzz", reaction_type: "unicode_emoji" }), "Invalid emoji code.");
    await expectStatusError(post({ emoji_name: "car", emoji_code: "1f697", reaction_type: "sticker" }), "Invalid emoji type.");
    await expectStatusError(post({ emoji_name: "green_tick", emoji_code: "99999", reaction_type: "realm_emoji" }), "Invalid custom emoji.");
    await expectStatusError(s.api.post(s.realm.bot, "/users/me/status", { status_text: "beep" }), "This endpoint does not accept bot requests.");
    // 60 characters after stripping are fine.
    expectSuccess(await post({ status_text: ` ${"y".repeat(60)} ` }));
  });
});

const other = () => s.realm.other;

describe("POST /users/{user_id}/status (administrators)", () => {
  it("an administrator sets another user's status; the event names the target", async () => {
    const { admin, member } = s.realm;
    expectSuccess(await s.api.post(admin, `/users/${member.id}/status`, { status_text: "on leave", emoji_name: "palm_tree" }));
    expect(await statusRow(member)).toEqual({ status_text: "on leave", emoji_name: "palm_tree", emoji_code: "1f334", reaction_type: "unicode_emoji" });
    expect(published.map((p) => p.event)).toEqual([
      { type: "user_status", user_id: member.id, status_text: "on leave", emoji_name: "palm_tree", emoji_code: "1f334", reaction_type: "unicode_emoji" },
    ]);
  });

  it("refuses non-administrators, bots, deactivated and unknown users", async () => {
    const { member, moderator, other: o, admin, bot, owner } = s.realm;
    await expectStatusError(s.api.post(moderator, `/users/${o.id}/status`, { status_text: "x" }), "Insufficient permission");
    await expectStatusError(s.api.post(member, `/users/${member.id}/status`, { status_text: "x" }), "Insufficient permission");
    await expectStatusError(s.api.post(admin, `/users/${bot.id}/status`, { status_text: "x" }), "No such user");
    await expectStatusError(s.api.post(admin, "/users/99999/status", { status_text: "x" }), "No such user");
    await expectStatusError(s.api.post(admin, `/users/${s.other.member.id}/status`, { status_text: "x" }), "No such user");
    await expectStatusError(s.api.post(admin, `/users/${o.id}/status`, {}), "Client did not pass any new values.");
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", s.realm.guest.id).execute();
    await expectStatusError(s.api.post(owner, `/users/${s.realm.guest.id}/status`, { status_text: "x" }), "User is deactivated");
    await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", s.realm.guest.id).execute();
  });
});

describe("GET /users/{user_id}/status", () => {
  it("an empty object when nothing is set; No such user for unknown and other-realm users", async () => {
    expect(expectSuccess(await s.api.get(s.realm.member, `/users/${s.realm.owner.id}/status`))).toEqual({ result: "success", msg: "", status: {} });
    expectError(await s.api.get(s.realm.member, "/users/99999/status"), "No such user");
    expectError(await s.api.get(s.realm.member, `/users/${s.other.owner.id}/status`), "No such user");
  });
});
