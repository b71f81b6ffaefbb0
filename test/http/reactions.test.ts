import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/messages.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { User } from "../../src/db/schema.js";
import { apiEmail } from "../../src/lib/users.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let emojiId: number;
let oldEmojiId: number;

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, admin, member, other } = s.realm;
  await makeChannel(s, "lounge", { subscribers: [owner, admin, member, other] });
  await makeChannel(s, "vault", { subscribers: [owner, member], invite_only: true });
  await makeChannel(s, "diary", { subscribers: [owner, member], invite_only: true, history_public_to_subscribers: false });
  const insert = (name: string, deactivated: number) =>
    s.db.insertInto("realm_emoji").values({ realm_id: s.realm.realm.id, name, file_name: `${name}.png`, author_id: owner.id, deactivated }).returning("id").executeTakeFirstOrThrow();
  emojiId = (await insert("green_tick", 0)).id;
  oldEmojiId = (await insert("retired", 1)).id;
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const react = (user: User, id: number, params: Record<string, unknown>) => s.api.post(user, `/messages/${id}/reactions`, params);
const unreact = (user: User, id: number, params: Record<string, unknown>) => s.api.delete(user, `/messages/${id}/reactions`, params);
const reactionRows = (id: number) =>
  s.db.selectFrom("reactions").select(["user_id", "emoji_name", "emoji_code", "reaction_type"]).where("message_id", "=", id).orderBy("id").execute();

/** Asserts the error and that no reaction row or per-user row changed. */
async function expectReactError(user: User, id: number, params: Record<string, unknown>, msg: string, code = "BAD_REQUEST", remove = false) {
  const before = { reactions: await s.db.selectFrom("reactions").selectAll().orderBy("id").execute(), um: await s.db.selectFrom("user_messages").selectAll().where("message_id", "=", id).execute() };
  expectError(await (remove ? unreact : react)(user, id, params), msg, { code });
  const after = { reactions: await s.db.selectFrom("reactions").selectAll().orderBy("id").execute(), um: await s.db.selectFrom("user_messages").selectAll().where("message_id", "=", id).execute() };
  expect(after).toEqual(before);
  expect(published.filter((p) => p.event.type === "reaction")).toEqual([]);
}

describe("POST /messages/{message_id}/reactions", () => {
  it("adds a Unicode emoji by name, shows it on the message and tells the message's readers", async () => {
    const { member, other, owner, admin } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "hello");
    published = [];
    expect(expectSuccess(await react(other, id, { emoji_name: "octopus" }))).toEqual({ result: "success", msg: "" });
    expect(await reactionRows(id)).toEqual([{ user_id: other.id, emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" }]);
    const events = published.filter((p) => p.event.type === "reaction");
    expect(events).toHaveLength(1);
    expect(events[0].event).toEqual({
      type: "reaction",
      op: "add",
      user_id: other.id,
      user: { user_id: other.id, email: apiEmail(other, s.realm.host), full_name: "Otto Other" },
      message_id: id,
      emoji_name: "octopus",
      emoji_code: "1f419",
      reaction_type: "unicode_emoji",
    });
    expect([...events[0].userIds].sort()).toEqual([owner.id, admin.id, member.id, other.id].sort());
    const fetched = expectSuccess(await s.api.get(member, `/messages/${id}`)).message;
    expect(fetched.reactions).toEqual([{ emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji", user_id: other.id }]);
    const listed = expectSuccess(await s.api.get(member, "/messages", { anchor: id, num_before: 0, num_after: 0 })).messages;
    expect(listed[0].reactions).toEqual(fetched.reactions);
  });

  it("takes aliases, explicit codes and the extra emoji", async () => {
    const { member } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "aliases");
    expectSuccess(await react(member, id, { emoji_name: "thumbs_up" }));
    expectSuccess(await react(member, id, { emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji" }));
    expectSuccess(await react(member, id, { emoji_name: "parley" }));
    expectSuccess(await react(member, id, { emoji_name: "smile", emoji_code: "1f642" }));
    expect(await reactionRows(id)).toEqual([
      { user_id: member.id, emoji_name: "thumbs_up", emoji_code: "1f44d", reaction_type: "unicode_emoji" },
      { user_id: member.id, emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji" },
      { user_id: member.id, emoji_name: "parley", emoji_code: "parley", reaction_type: "chat_extra_emoji" },
      { user_id: member.id, emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" },
    ]);
  });

  it("a second reaction with the same emoji code is a vote and keeps the first name", async () => {
    const { member, other } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "votes");
    expectSuccess(await react(member, id, { emoji_name: "+1" }));
    expectSuccess(await react(other, id, { emoji_name: "like", emoji_code: "1f44d", reaction_type: "unicode_emoji" }));
    expect((await reactionRows(id)).map((r) => [r.user_id, r.emoji_name])).toEqual([
      [member.id, "+1"],
      [other.id, "+1"],
    ]);
  });

  it("refuses the same reaction twice with REACTION_ALREADY_EXISTS", async () => {
    const { member } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "twice");
    expectSuccess(await react(member, id, { emoji_name: "+1" }));
    published = [];
    await expectReactError(member, id, { emoji_name: "thumbs_up" }, "Reaction already exists.", "REACTION_ALREADY_EXISTS");
  });

  it("validates names, codes and types with upstream's messages", async () => {
    const { member } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "invalid");
    published = [];
    await expectReactError(member, id, {}, "Missing 'emoji_name' argument", "REQUEST_VARIABLE_MISSING");
    await expectReactError(member, id, { emoji_name: "no_such_emoji" }, "Emoji 'no_such_emoji' does not exist");
    await expectReactError(member, id, { emoji_name: "octopus", emoji_code: "ffffff", reaction_type: "unicode_emoji" }, "Invalid emoji code.");
    await expectReactError(member, id, { emoji_name: "octopus", emoji_code: "1f44d", reaction_type: "unicode_emoji" }, "Invalid emoji name.");
    await expectReactError(member, id, { emoji_name: "octopus", emoji_code: "1f419", reaction_type: "sticker" }, "Invalid emoji type.");
    await expectReactError(member, id, { emoji_name: "parley", emoji_code: "other", reaction_type: "chat_extra_emoji" }, "Invalid emoji code.");
    await expectReactError(member, id, { emoji_name: "logo", emoji_code: "parley", reaction_type: "chat_extra_emoji" }, "Invalid emoji name.");
    await expectReactError(member, id, { emoji_name: "green_tick", emoji_code: "99999", reaction_type: "realm_emoji" }, "Invalid custom emoji.");
    await expectReactError(member, id, { emoji_name: "green_tick", emoji_code: "abc", reaction_type: "realm_emoji" }, "Invalid custom emoji.");
    await expectReactError(member, id, { emoji_name: "red_tick", emoji_code: String(emojiId), reaction_type: "realm_emoji" }, "Invalid custom emoji name.");
    await expectReactError(member, id, { emoji_name: "retired", emoji_code: String(oldEmojiId), reaction_type: "realm_emoji" }, "This custom emoji has been deactivated.");
    await expectReactError(member, id, { emoji_name: "retired" }, "Emoji 'retired' does not exist");
  });

  it("custom emoji: by name (code is the id) and by explicit code", async () => {
    const { member, other } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "custom");
    expectSuccess(await react(member, id, { emoji_name: "green_tick" }));
    expectSuccess(await react(other, id, { emoji_name: "green_tick", emoji_code: String(emojiId), reaction_type: "realm_emoji" }));
    expect(await reactionRows(id)).toEqual([
      { user_id: member.id, emoji_name: "green_tick", emoji_code: String(emojiId), reaction_type: "realm_emoji" },
      { user_id: other.id, emoji_name: "green_tick", emoji_code: String(emojiId), reaction_type: "realm_emoji" },
    ]);
  });

  it("voting for a reaction whose custom emoji was deactivated since is allowed", async () => {
    const { member, other } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "old custom");
    await s.db.insertInto("reactions").values({ realm_id: s.realm.realm.id, message_id: id, user_id: member.id, emoji_name: "retired", emoji_code: String(oldEmojiId), reaction_type: "realm_emoji" }).execute();
    expectSuccess(await react(other, id, { emoji_name: "whatever", emoji_code: String(oldEmojiId), reaction_type: "realm_emoji" }));
    expect((await reactionRows(id))[1]).toEqual({ user_id: other.id, emoji_name: "retired", emoji_code: String(oldEmojiId), reaction_type: "realm_emoji" });
  });

  it("refuses messages the caller cannot read, with the same error as missing ones", async () => {
    const { member, other, guest, owner } = s.realm;
    const vault = await sendChannelMessage(s, member, "vault", "t", "secret");
    const dm = await sendDirectMessage(s, member, [owner], "private");
    published = [];
    await expectReactError(other, vault, { emoji_name: "octopus" }, "Invalid message(s)");
    await expectReactError(other, dm, { emoji_name: "octopus" }, "Invalid message(s)");
    await expectReactError(other, 999999, { emoji_name: "octopus" }, "Invalid message(s)");
    await expectReactError(s.other.owner, vault, { emoji_name: "octopus" }, "Invalid message(s)");
    const lounge = await sendChannelMessage(s, member, "lounge", "t", "guests cannot read public channels they are not in");
    published = [];
    await expectReactError(guest, lounge, { emoji_name: "octopus" }, "Invalid message(s)");
  });

  it("a reader without a per-user row gets a historical one", async () => {
    const { member, moderator } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "drive-by");
    published = [];
    expectSuccess(await react(moderator, id, { emoji_name: "eyes" }));
    const row = await s.db.selectFrom("user_messages").select("flags").where("message_id", "=", id).where("user_id", "=", moderator.id).executeTakeFirstOrThrow();
    expect(row.flags).toBe(1 | 128);
    expect(published.find((p) => p.event.type === "reaction")!.userIds).toContain(moderator.id);
  });

  it("in a channel without shared history, only users with a row hear of it", async () => {
    const { member, owner } = s.realm;
    const id = await sendChannelMessage(s, member, "diary", "t", "mine");
    await s.db.deleteFrom("user_messages").where("message_id", "=", id).where("user_id", "=", owner.id).execute();
    published = [];
    expectSuccess(await react(member, id, { emoji_name: "eyes" }));
    expect(published.find((p) => p.event.type === "reaction")!.userIds).toEqual([member.id]);
  });
});

describe("DELETE /messages/{message_id}/reactions", () => {
  it("removes by name or by code and sends a remove event", async () => {
    const { member, other } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "remove");
    expectSuccess(await react(member, id, { emoji_name: "octopus" }));
    expectSuccess(await react(member, id, { emoji_name: "tada" }));
    published = [];
    expect(expectSuccess(await unreact(member, id, { emoji_name: "octopus" }))).toEqual({ result: "success", msg: "" });
    expectSuccess(await unreact(member, id, { emoji_code: "1f389" }));
    expect(await reactionRows(id)).toEqual([]);
    const events = published.filter((p) => p.event.type === "reaction");
    expect(events.map((e) => e.event)).toEqual([
      expect.objectContaining({ op: "remove", user_id: member.id, message_id: id, emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" }),
      expect.objectContaining({ op: "remove", emoji_name: "tada", emoji_code: "1f389" }),
    ]);
    expect(events[0].userIds).toContain(other.id);
  });

  it("removes a custom emoji reaction even after the emoji was deactivated", async () => {
    const { member } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "remove custom");
    await s.db.insertInto("reactions").values({ realm_id: s.realm.realm.id, message_id: id, user_id: member.id, emoji_name: "retired", emoji_code: String(oldEmojiId), reaction_type: "realm_emoji" }).execute();
    published = [];
    // The type defaults to unicode_emoji, so the custom reaction is not that one.
    await expectReactError(member, id, { emoji_code: String(oldEmojiId) }, "Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST", true);
    expectSuccess(await unreact(member, id, { emoji_code: String(oldEmojiId), reaction_type: "realm_emoji" }));
    expect(await reactionRows(id)).toEqual([]);
  });

  it("errors: no name or code, unknown name, someone else's reaction, unreadable message", async () => {
    const { member, other } = s.realm;
    const id = await sendChannelMessage(s, member, "lounge", "t", "remove errors");
    expectSuccess(await react(other, id, { emoji_name: "octopus" }));
    const vault = await sendChannelMessage(s, member, "vault", "t", "secret");
    published = [];
    await expectReactError(member, id, {}, "At least one of the following arguments must be present: emoji_name, emoji_code", "BAD_REQUEST", true);
    await expectReactError(member, id, { emoji_name: "no_such_emoji" }, "Emoji 'no_such_emoji' does not exist", "BAD_REQUEST", true);
    await expectReactError(member, id, { emoji_name: "octopus" }, "Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST", true);
    await expectReactError(other, vault, { emoji_name: "octopus" }, "Invalid message(s)", "BAD_REQUEST", true);
  });
});
