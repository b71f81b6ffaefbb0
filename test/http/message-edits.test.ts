import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/messages.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { User } from "../../src/db/schema.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let design: { id: number; recipient_id: number; name: string };
let archive: { id: number; recipient_id: number; name: string };
let secret: { id: number; recipient_id: number; name: string };
let groups: Map<string, number>;

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, admin, moderator, member, other } = s.realm;
  design = await makeChannel(s, "design", { subscribers: [owner, admin, moderator, member, other] });
  archive = await makeChannel(s, "archive", { subscribers: [owner, admin, member] });
  secret = await makeChannel(s, "secret", { subscribers: [owner, member], invite_only: true });
  const rows = await s.db.selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", s.realm.realm.id).where("is_system_group", "=", 1).execute();
  groups = new Map(rows.map((r) => [r.name!, r.id]));
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const setRealm = (values: Record<string, unknown>) => s.db.updateTable("realms").set(values).where("id", "=", s.realm.realm.id).execute();
const messageRow = (id: number) => s.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const editRows = (id: number) => s.db.selectFrom("message_edits").selectAll().where("message_id", "=", id).orderBy("id").execute();
const patch = (user: User, id: number, params: Record<string, unknown>) => s.api.patch(user, `/messages/${id}`, params);

/** Asserts an error and that the message and its history did not change. */
async function expectEditError(user: User, id: number, params: Record<string, unknown>, msg: string) {
  const before = { row: await messageRow(id), edits: await editRows(id) };
  expectError(await patch(user, id, params), msg);
  expect({ row: await messageRow(id), edits: await editRows(id) }).toEqual(before);
}

describe("PATCH /messages/{message_id}: content", () => {
  it("edits content, re-renders, records exactly the change and notifies recipients", async () => {
    const { member, other, owner } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "notes", "first draft");
    published = [];
    const res = await patch(member, id, { content: "second **draft** for @**Otto Other**" });
    expect(expectSuccess(res)).toEqual({ result: "success", msg: "", detached_uploads: [] });
    const row = await messageRow(id);
    expect(row.content).toBe("second **draft** for @**Otto Other**");
    expect(row.rendered_content).toContain("<strong>draft</strong>");
    expect(row.last_edit_time).not.toBeNull();
    const edits = await editRows(id);
    expect(edits).toHaveLength(1);
    expect(edits[0]).toMatchObject({ user_id: member.id, prev_content: "first draft", prev_rendered_content: "<p>first draft</p>", prev_topic: null, topic: null, prev_channel_id: null, channel_id: null });
    const um = await s.db.selectFrom("user_messages").select("flags").where("message_id", "=", id).where("user_id", "=", other.id).executeTakeFirstOrThrow();
    expect(um.flags).toBe(8);
    const events = published.filter((p) => p.event.type === "update_message");
    const toOther = events.find((e) => e.userIds.includes(other.id))!;
    expect(toOther.event).toEqual({
      type: "update_message",
      user_id: member.id,
      edit_timestamp: row.last_edit_time,
      message_id: id,
      message_ids: [id],
      rendering_only: false,
      stream_name: "design",
      stream_id: design.id,
      orig_content: "first draft",
      orig_rendered_content: "<p>first draft</p>",
      content: row.content,
      rendered_content: row.rendered_content,
      is_me_message: false,
      flags: ["mentioned"],
    });
    expect(events.flatMap((e) => e.userIds)).toEqual(expect.arrayContaining([owner.id, member.id, other.id]));
    const fetched = expectSuccess(await s.api.get(member, `/messages/${id}`)).message;
    expect(fetched.last_edit_timestamp).toBe(row.last_edit_time);
    expect(fetched.last_moved_timestamp).toBeUndefined();
    expect(fetched.edit_history).toEqual([{ user_id: member.id, timestamp: row.last_edit_time, prev_content: "first draft", prev_rendered_content: "<p>first draft</p>" }]);
  });

  it("turns blank content into (deleted) and edits direct messages", async () => {
    const { member, other } = s.realm;
    const id = await sendDirectMessage(s, member, [other], "oops");
    expectSuccess(await patch(member, id, { content: "   " }));
    expect((await messageRow(id)).content).toBe("(deleted)");
    const ev = published.find((p) => p.event.type === "update_message")!;
    expect(ev.event.stream_id).toBeUndefined();
  });

  it("only lets the sender edit content, within the realm's limits", async () => {
    const { member, admin } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "notes", "mine");
    await expectEditError(admin, id, { content: "admin rewrite" }, "You don't have permission to edit this message");
    await setRealm({ allow_message_editing: 0 });
    try {
      await expectEditError(member, id, { content: "x" }, "Your organization has turned off message editing");
    } finally {
      await setRealm({ allow_message_editing: 1 });
    }
    await s.db.updateTable("messages").set({ date_sent: Math.floor(Date.now() / 1000) - 700 }).where("id", "=", id).execute();
    await setRealm({ message_content_edit_limit_seconds: 600 });
    try {
      await expectEditError(member, id, { content: "late" }, "The time limit for editing this message has passed");
    } finally {
      await setRealm({ message_content_edit_limit_seconds: null });
    }
    expectError(await patch(member, 999999, { content: "x" }), "Invalid message(s)");
    const hidden = await sendChannelMessage(s, s.realm.owner, "secret", "t", "hidden");
    expectError(await patch(s.realm.admin, hidden, { topic: "x" }), "Invalid message(s)");
  });

  it("validates the request as upstream, in order", async () => {
    const { member, other } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "notes", "body");
    const dm = await sendDirectMessage(s, member, [other], "dm");
    await expectEditError(member, id, {}, "Nothing to change");
    await expectEditError(member, id, { topic: " notes " }, "Nothing to change");
    await expectEditError(member, dm, { topic: "x" }, "Direct messages cannot have topics.");
    await expectEditError(member, dm, { stream_id: design.id }, "Direct messages cannot be moved to channels.");
    await expectEditError(member, id, { propagate_mode: "change_some", topic: "x" }, "Invalid propagate_mode");
    await expectEditError(member, id, { propagate_mode: "change_all", content: "x" }, "Invalid propagate_mode without topic edit");
    await expectEditError(member, id, { topic: "✔" }, "General chat cannot be marked as resolved");
    await expectEditError(member, id, { topic: "✔ general chat" }, "General chat cannot be marked as resolved");
    await expectEditError(member, id, { topic: "bad\u0001" }, "Invalid character in topic, at position 4!");
    await expectEditError(member, id, { stream_id: archive.id, content: "x" }, "Cannot change message content while changing channel");
    await expectEditError(member, id, { stream_id: -1 }, "stream_id is too small");
    await setRealm({ mandatory_topics: 1 });
    try {
      await expectEditError(member, id, { topic: "" }, "Topics are required in this organization.");
    } finally {
      await setRealm({ mandatory_topics: 0 });
    }
    expect((await s.api.patch(null, `/messages/${id}`, { content: "x" })).statusCode).toBe(401);
  });
});

describe("PATCH /messages/{message_id}: topics and channels", () => {
  it("moves one, later or all messages of a topic", async () => {
    const { member, other } = s.realm;
    const a = await sendChannelMessage(s, member, "design", "plans", "a");
    const b = await sendChannelMessage(s, other, "design", "Plans", "b");
    const c = await sendChannelMessage(s, member, "design", "plans", "c");
    expectSuccess(await patch(member, b, { topic: "roadmap" }));
    expect((await messageRow(b)).topic).toBe("roadmap");
    expect((await messageRow(a)).topic).toBe("plans");
    expect(await editRows(b)).toEqual([expect.objectContaining({ prev_topic: "Plans", topic: "roadmap", prev_content: null, prev_channel_id: null })]);
    const ev = published.find((p) => p.event.type === "update_message")!.event;
    expect(ev).toMatchObject({ message_ids: [b], orig_subject: "Plans", subject: "roadmap", propagate_mode: "change_one", topic_links: [], stream_id: design.id });
    expectSuccess(await patch(member, a, { topic: "later", propagate_mode: "change_later" }));
    expect([(await messageRow(a)).topic, (await messageRow(c)).topic]).toEqual(["later", "later"]);
    expectSuccess(await patch(other, c, { topic: "everything", propagate_mode: "change_all" }));
    expect([(await messageRow(a)).topic, (await messageRow(c)).topic, (await messageRow(b)).topic]).toEqual(["everything", "everything", "roadmap"]);
    expect(await editRows(a)).toHaveLength(2);
    const moved = expectSuccess(await s.api.get(member, `/messages/${a}`)).message;
    expect(moved.last_moved_timestamp).toBeDefined();
    expect(moved.last_edit_timestamp).toBeUndefined();
  });

  it("resolves topics without counting it as a move, with its own permission", async () => {
    const { member, other } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "bug 12", "broken");
    expectSuccess(await patch(other, id, { topic: "✔ bug 12", propagate_mode: "change_all" }));
    expect((await messageRow(id)).topic).toBe("✔ bug 12");
    expect((await messageRow(id)).last_moved_time).toBeNull();
    const m = expectSuccess(await s.api.get(member, `/messages/${id}`)).message;
    expect(m.last_moved_timestamp).toBeUndefined();
    await setRealm({ can_resolve_topics_group_id: groups.get("role:moderators") });
    try {
      await expectEditError(member, id, { topic: "bug 12" }, "You don't have permission to resolve topics in this channel.");
      expectSuccess(await patch(s.realm.moderator, id, { topic: "bug 12" }));
    } finally {
      await setRealm({ can_resolve_topics_group_id: groups.get("role:everyone") });
    }
  });

  it("checks topic-move permission and time limit", async () => {
    const { member, moderator } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "old", "x");
    await setRealm({ can_move_messages_between_topics_group_id: groups.get("role:administrators") });
    try {
      await expectEditError(member, id, { topic: "new" }, "You don't have permission to edit this message");
    } finally {
      await setRealm({ can_move_messages_between_topics_group_id: groups.get("role:everyone") });
    }
    await s.db.updateTable("messages").set({ date_sent: Math.floor(Date.now() / 1000) - 100 }).where("id", "=", id).execute();
    await setRealm({ move_messages_within_stream_limit_seconds: 10 });
    try {
      await expectEditError(member, id, { topic: "new" }, "The time limit for editing this message's topic has passed.");
      expectSuccess(await patch(moderator, id, { topic: "new" }));
    } finally {
      await setRealm({ move_messages_within_stream_limit_seconds: null });
    }
  });

  it("moves messages to another channel, adjusting rows and first_message_id", async () => {
    const { member, other, owner, admin, moderator } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "moving", "to archive");
    expectSuccess(await patch(admin, id, { stream_id: archive.id }));
    const row = await messageRow(id);
    expect(row).toMatchObject({ channel_id: archive.id, recipient_id: archive.recipient_id, topic: "moving" });
    expect(await editRows(id)).toEqual([expect.objectContaining({ prev_channel_id: design.id, channel_id: archive.id, prev_topic: null, topic: null })]);
    const holders = (await s.db.selectFrom("user_messages").select("user_id").where("message_id", "=", id).execute()).map((r) => r.user_id);
    // Public target: everyone keeps their row; archive subscribers had rows already.
    expect(holders.sort()).toEqual([owner.id, admin.id, moderator.id, member.id, other.id].sort());
    const ev = published.find((p) => p.event.type === "update_message")!.event;
    expect(ev).toMatchObject({ stream_id: design.id, new_stream_id: archive.id, orig_subject: "moving", propagate_mode: "change_one" });
    expect(ev.subject).toBeUndefined();
    const ch = await s.db.selectFrom("channels").select("first_message_id").where("id", "=", archive.id).executeTakeFirstOrThrow();
    expect(ch.first_message_id).toBe(id);

    // Into a private channel: non-subscribers lose their rows and get delete events.
    const id2 = await sendChannelMessage(s, member, "design", "private move", "psst");
    published = [];
    expectSuccess(await patch(owner, id2, { stream_id: secret.id, topic: "moved here" }));
    const holders2 = (await s.db.selectFrom("user_messages").select("user_id").where("message_id", "=", id2).execute()).map((r) => r.user_id);
    expect(holders2.sort()).toEqual([owner.id, member.id].sort());
    const del = published.find((p) => p.event.type === "delete_message")!;
    expect([...del.userIds].sort()).toEqual([admin.id, moderator.id, other.id].sort());
    expect(del.event).toEqual({ type: "delete_message", message_type: "stream", message_ids: [id2], stream_id: design.id, topic: "private move" });
    expect(published.filter((p) => p.event.type === "update_message").flatMap((p) => p.userIds)).not.toContain(other.id);
  });

  it("checks channel-move permissions", async () => {
    const { member, admin } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "stay", "x");
    await expectEditError(member, id, { stream_id: 999999 }, "Invalid channel ID");
    await expectEditError(admin, id, { stream_id: secret.id }, "Invalid channel ID");
    await setRealm({ can_move_messages_between_channels_group_id: groups.get("role:administrators") });
    try {
      await expectEditError(member, id, { stream_id: archive.id }, "You don't have permission to move this message");
    } finally {
      await setRealm({ can_move_messages_between_channels_group_id: groups.get("role:members") });
    }
    await s.db.updateTable("channels").set({ can_send_message_group_id: groups.get("role:owners") }).where("id", "=", archive.id).execute();
    try {
      await expectEditError(member, id, { stream_id: archive.id }, "You do not have permission to post in this channel.");
    } finally {
      await s.db.updateTable("channels").set({ can_send_message_group_id: null }).where("id", "=", archive.id).execute();
    }
    await expectEditError(s.realm.guest, id, { stream_id: archive.id }, "Invalid message(s)");
  });
});

describe("DELETE /messages/{message_id}", () => {
  const exists = async (id: number) => (await s.db.selectFrom("messages").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;

  it("lets senders delete their own messages and removes every related row", async () => {
    const { member, other } = s.realm;
    const fresh = await makeChannel(s, "fresh", { subscribers: [member, other] });
    const first = await sendChannelMessage(s, member, "fresh", "t", "first");
    const second = await sendChannelMessage(s, other, "fresh", "t", "second");
    await s.db.insertInto("reactions").values({ realm_id: s.realm.realm.id, message_id: first, user_id: other.id, emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" }).execute();
    published = [];
    expect(expectSuccess(await s.api.delete(member, `/messages/${first}`))).toEqual({ result: "success", msg: "" });
    expect(await exists(first)).toBe(false);
    expect(await s.db.selectFrom("user_messages").select("user_id").where("message_id", "=", first).execute()).toEqual([]);
    expect(await s.db.selectFrom("reactions").select("id").where("message_id", "=", first).execute()).toEqual([]);
    const del = published.find((p) => p.event.type === "delete_message")!;
    expect(del.event).toEqual({ type: "delete_message", message_type: "stream", message_ids: [first], stream_id: fresh.id, topic: "t" });
    expect([...del.userIds].sort()).toEqual([member.id, other.id].sort());
    const ch = await s.db.selectFrom("channels").select("first_message_id").where("id", "=", fresh.id).executeTakeFirstOrThrow();
    expect(ch.first_message_id).toBe(second);
    const upd = published.find((p) => p.event.type === "stream")!;
    expect(upd.event).toEqual({ type: "stream", op: "update", property: "first_message_id", value: second, stream_id: fresh.id, name: "fresh" });
  });

  it("checks who may delete, and the time limit", async () => {
    const { member, other, admin } = s.realm;
    const id = await sendChannelMessage(s, other, "design", "t", "not yours");
    expectError(await s.api.delete(member, `/messages/${id}`), "You don't have permission to delete this message");
    expect(await exists(id)).toBe(true);
    const own = await sendChannelMessage(s, member, "design", "t", "mine");
    await setRealm({ can_delete_own_message_group_id: groups.get("role:administrators") });
    try {
      expectError(await s.api.delete(member, `/messages/${own}`), "You don't have permission to delete this message");
    } finally {
      await setRealm({ can_delete_own_message_group_id: groups.get("role:everyone") });
    }
    await s.db.updateTable("messages").set({ date_sent: Math.floor(Date.now() / 1000) - 100 }).where("id", "=", own).execute();
    await setRealm({ message_content_delete_limit_seconds: 60 });
    try {
      expectError(await s.api.delete(member, `/messages/${own}`), "The time limit for deleting this message has passed");
      expect(await exists(own)).toBe(true);
      // Administrators may delete any message, whenever.
      expectSuccess(await s.api.delete(admin, `/messages/${own}`));
      expectSuccess(await s.api.delete(admin, `/messages/${id}`));
    } finally {
      await setRealm({ message_content_delete_limit_seconds: null });
    }
    // A bot's owner may delete the bot's messages.
    const botMsg = await sendDirectMessage(s, s.realm.bot, [member], "beep");
    expectSuccess(await s.api.delete(member, `/messages/${botMsg}`));
    expectError(await s.api.delete(member, "/messages/999999"), "Invalid message(s)");
    expect((await s.api.delete(null, `/messages/${id}`)).statusCode).toBe(401);
  });
});

describe("who is told about edits and deletions (the readers of the message)", () => {
  const recipients = (type: string) => published.filter((p) => p.event.type === type).flatMap((p) => [...p.userIds]).sort((a, b) => a - b);

  it("a protected-history channel: neither a late subscriber nor a former subscriber hears of the edit, the rename or the deletion", async () => {
    const { owner, member, other, moderator } = s.realm;
    const vault = await makeChannel(s, "vault", { subscribers: [owner, member, moderator], invite_only: true, history_public_to_subscribers: false });
    const id = await sendChannelMessage(s, member, "vault", "t", "before you came");
    await s.db.insertInto("subscriptions").values({ realm_id: s.realm.realm.id, user_id: other.id, recipient_id: vault.recipient_id }).execute();
    expectSuccess(await s.api.delete(moderator, "/users/me/subscriptions", { subscriptions: ["vault"] }));
    expectError(await s.api.get(other, `/messages/${id}`), "Invalid message(s)");
    expectError(await s.api.get(moderator, `/messages/${id}`), "Invalid message(s)");
    const readers = [owner.id, member.id].sort((a, b) => a - b);

    published = [];
    expectSuccess(await patch(member, id, { content: "edited" }));
    expect(recipients("update_message")).toEqual(readers);
    published = [];
    expectSuccess(await patch(member, id, { topic: "renamed" }));
    expect(recipients("update_message")).toEqual(readers);
    published = [];
    expectSuccess(await s.api.post(member, `/messages/${id}/typing`, { op: "start" }));
    expect(recipients("typing_edit_message")).toEqual(readers);
    published = [];
    expectSuccess(await s.api.delete(member, `/messages/${id}`));
    expect(recipients("delete_message")).toEqual(readers);
  });

  it("a shared-history channel: a late subscriber without a row is told, as a reader", async () => {
    const { owner, member, other } = s.realm;
    const lounge = await makeChannel(s, "lounge", { subscribers: [owner, member], invite_only: true });
    const id = await sendChannelMessage(s, member, "lounge", "t", "history for all");
    await s.db.insertInto("subscriptions").values({ realm_id: s.realm.realm.id, user_id: other.id, recipient_id: lounge.recipient_id }).execute();
    published = [];
    expectSuccess(await patch(member, id, { content: "edited" }));
    expect(recipients("update_message")).toEqual([owner.id, member.id, other.id].sort((a, b) => a - b));
    const toOther = published.find((p) => p.event.type === "update_message" && p.userIds.includes(other.id))!;
    expect(toOther.event.flags).toEqual(["read"]);
  });
});
