import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, messageCounts, sendChannelMessage, sendDirectMessage } from "../support/messages.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import { doCreateUser } from "../../src/actions/users-create.js";
import { Role } from "../../src/lib/roles.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let channel: { id: number; recipient_id: number; name: string };
let secret: { id: number; recipient_id: number; name: string };

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, admin, member, other, guest } = s.realm;
  channel = await makeChannel(s, "design", { subscribers: [owner, admin, member, other] });
  secret = await makeChannel(s, "secret", { subscribers: [owner], invite_only: true });
  await makeChannel(s, "guests", { subscribers: [guest, member] });
});
afterAll(() => s.close());

async function flagsOf(messageId: number): Promise<Map<number, number>> {
  const rows = await s.db.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", messageId).execute();
  return new Map(rows.map((r) => [r.user_id, r.flags]));
}

/** Asserts the request failed with the message and that no message rows were written. */
async function expectSendError(params: Record<string, unknown>, msg: string, opts: { code?: string; user?: typeof s.realm.member } = {}) {
  const before = await messageCounts(s);
  const res = await s.api.post(opts.user ?? s.realm.member, "/messages", params);
  const body = expectError(res, msg, { code: opts.code });
  expect(await messageCounts(s)).toEqual(before);
  return body;
}

describe("POST /messages to a channel", () => {
  it("sends by channel name, stores the message and one row per subscriber", async () => {
    published = [];
    const { member, owner, admin, other } = s.realm;
    const res = await s.api.post(member, "/messages", { type: "stream", to: "design", topic: "kickoff", content: "hello **world**" });
    const { id } = expectSuccess(res);
    expect(Object.keys(res.json()).sort()).toEqual(["id", "msg", "result"]);
    const row = await s.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ realm_id: s.realm.realm.id, sender_id: member.id, channel_id: channel.id, recipient_id: channel.recipient_id, topic: "kickoff", content: "hello **world**" });
    expect(row.rendered_content).toBe("<p>hello <strong>world</strong></p>");
    const flags = await flagsOf(id);
    expect(Object.fromEntries(flags)).toEqual({ [owner.id]: 0, [admin.id]: 0, [member.id]: 1, [other.id]: 0 });
    const ch = await s.db.selectFrom("channels").select("first_message_id").where("id", "=", channel.id).executeTakeFirstOrThrow();
    expect(ch.first_message_id).toBe(id);
    // Events: one per distinct flag set, each to its users, with the message object;
    // then one copy for all_public_streams queues (a public channel), addressed to no user.
    const events = published.filter((p) => p.event.type === "message" && p.audience === undefined);
    expect(events).toHaveLength(2);
    const publicCopy = published.filter((p) => p.event.type === "message" && p.audience !== undefined);
    expect(publicCopy.map((p) => [p.userIds, p.audience, p.event.flags])).toEqual([[[], { publicChannelId: channel.id }, []]]);
    const forSender = events.find((e) => e.userIds.includes(member.id))!;
    expect(forSender.userIds).toEqual([member.id]);
    expect(forSender.event.flags).toEqual(["read"]);
    const forOthers = events.find((e) => !e.userIds.includes(member.id))!;
    expect([...forOthers.userIds].sort()).toEqual([owner.id, admin.id, other.id].sort());
    expect(forOthers.event.flags).toEqual([]);
    expect(forOthers.event.message).toMatchObject({ id, type: "stream", stream_id: channel.id, display_recipient: "design", subject: "kickoff", content: "<p>hello <strong>world</strong></p>", content_type: "text/html", sender_id: member.id });
    expect((forOthers.event.message as Record<string, unknown>).flags).toBeUndefined();
  });

  it("sends by channel id, with type channel and the subject alias", async () => {
    const { id } = expectSuccess(await s.api.post(s.realm.member, "/messages", { type: "channel", to: channel.id, subject: "by id", content: "x" }));
    const row = await s.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ channel_id: channel.id, topic: "by id" });
    const { id: id2 } = expectSuccess(await s.api.post(s.realm.member, "/messages", { type: "stream", to: JSON.stringify([channel.id]), topic: "t", content: "x" }));
    expect(id2).toBeGreaterThan(id);
  });

  it("keeps the first_message_id of a channel", async () => {
    const ch = await s.db.selectFrom("channels").select("first_message_id").where("id", "=", channel.id).executeTakeFirstOrThrow();
    await sendChannelMessage(s, s.realm.member, "design", "later", "more");
    const after = await s.db.selectFrom("channels").select("first_message_id").where("id", "=", channel.id).executeTakeFirstOrThrow();
    expect(after.first_message_id).toBe(ch.first_message_id);
  });

  it("reports unknown channels with STREAM_DOES_NOT_EXIST", async () => {
    const byId = await expectSendError({ type: "stream", to: 99999, topic: "t", content: "x" }, "Stream with ID '99999' does not exist", { code: "STREAM_DOES_NOT_EXIST" });
    expect(byId.stream_id).toBe(99999);
    const byName = await expectSendError({ type: "stream", to: "nowhere", topic: "t", content: "x" }, "Stream 'nowhere' does not exist", { code: "STREAM_DOES_NOT_EXIST" });
    expect(byName.stream).toBe("nowhere");
    // A channel of another organization does not exist here.
    const elsewhere = await makeChannel(s, "elsewhere", { subscribers: [s.other.member] });
    await expectSendError({ type: "stream", to: elsewhere.id, topic: "t", content: "x" }, `Stream with ID '${elsewhere.id}' does not exist`, { code: "STREAM_DOES_NOT_EXIST" });
  });

  it("validates parameters in order", async () => {
    await expectSendError({ to: "design", topic: "t", content: "x" }, "Missing 'type' argument", { code: "REQUEST_VARIABLE_MISSING" });
    await expectSendError({ type: "bogus", to: "design", topic: "t", content: "x" }, "Invalid type");
    await expectSendError({ type: "stream", to: "design", topic: "t" }, "Missing 'content' argument", { code: "REQUEST_VARIABLE_MISSING" });
    await expectSendError({ type: "stream", topic: "t", content: "x" }, "Missing stream");
    await expectSendError({ type: "stream", to: "design", content: "x" }, "Missing topic");
    await expectSendError({ type: "stream", to: "[1,2]", topic: "t", content: "x" }, "Cannot send to multiple streams");
    await expectSendError({ type: "stream", to: "{}", topic: "t", content: "x" }, "Invalid data type for stream");
    await expectSendError({ type: "stream", to: "design", topic: "a\u0007b", content: "x" }, "Invalid character in topic, at position 2!");
    await expectSendError({ type: "stream", to: "design", topic: "t", content: "  \n " }, "Message must not be empty");
    await expectSendError({ type: "stream", to: "design", topic: "t", content: "a\u0000b" }, "Message must not contain null bytes");
    // Content errors come before the channel lookup, as upstream.
    await expectSendError({ type: "stream", to: "nowhere", topic: "t", content: "" }, "Message must not be empty");
  });

  it("reads (no topic) and the empty-topic display name as the empty topic", async () => {
    for (const topic of ["(no topic)", "general chat", "", "   "]) {
      const id = await sendChannelMessage(s, s.realm.member, "design", topic, "empty topic");
      const row = await s.db.selectFrom("messages").select("topic").where("id", "=", id).executeTakeFirstOrThrow();
      expect(row.topic).toBe("");
    }
  });

  it("requires topics when the organization does", async () => {
    await s.db.updateTable("realms").set({ mandatory_topics: 1 }).where("id", "=", s.realm.realm.id).execute();
    try {
      for (const topic of ["", "(no topic)", "general chat"]) {
        await expectSendError({ type: "stream", to: "design", topic, content: "x" }, "Topics are required in this organization");
      }
      await sendChannelMessage(s, s.realm.member, "design", "real topic", "fine");
      // Direct messages have no topic.
      await sendDirectMessage(s, s.realm.member, [s.realm.other], "fine");
    } finally {
      await s.db.updateTable("realms").set({ mandatory_topics: 0 }).where("id", "=", s.realm.realm.id).execute();
    }
  });

  it("truncates long topics and content to the realm limits", async () => {
    const id = await sendChannelMessage(s, s.realm.member, "design", "t".repeat(70), "c".repeat(10_050));
    const row = await s.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.topic).toBe("t".repeat(57) + "...");
    expect(row.content).toBe("c".repeat(10_000 - 20) + "\n[message truncated]");
    expect(row.content.length).toBe(10_000);
    await s.db.updateTable("realms").set({ max_topic_length: 10, max_message_length: 30 }).where("id", "=", s.realm.realm.id).execute();
    try {
      const id2 = await sendChannelMessage(s, s.realm.member, "design", "abcdefghijkl", "x".repeat(31));
      const row2 = await s.db.selectFrom("messages").selectAll().where("id", "=", id2).executeTakeFirstOrThrow();
      expect(row2.topic).toBe("abcdefg...");
      expect(row2.content).toBe("x".repeat(10) + "\n[message truncated]");
    } finally {
      await s.db.updateTable("realms").set({ max_topic_length: 60, max_message_length: 10000 }).where("id", "=", s.realm.realm.id).execute();
    }
  });

  it("strips trailing whitespace and leading newlines from content", async () => {
    const id = await sendChannelMessage(s, s.realm.member, "design", "t", "\n\n  indented\n\n  ");
    const row = await s.db.selectFrom("messages").select("content").where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.content).toBe("  indented");
  });

  it("lets non-subscribers post to public channels, not to private ones", async () => {
    const id = await sendChannelMessage(s, s.realm.moderator, "design", "t", "drive-by");
    // Not subscribed: no per-user row; the sender reads it as a historical message.
    expect((await flagsOf(id)).has(s.realm.moderator.id)).toBe(false);
    expect(expectSuccess(await s.api.get(s.realm.moderator, `/messages/${id}`)).message.flags).toEqual(["read", "historical"]);
    await expectSendError({ type: "stream", to: "secret", topic: "t", content: "x" }, "Not authorized to send to channel 'secret'");
    await expectSendError({ type: "stream", to: secret.id, topic: "t", content: "x" }, "Not authorized to send to channel 'secret'", { user: s.realm.admin });
    await sendChannelMessage(s, s.realm.owner, "secret", "t", "subscriber");
  });

  it("requires guests to be subscribed, even to public channels", async () => {
    await expectSendError({ type: "stream", to: "design", topic: "t", content: "x" }, "Not authorized to send to channel 'design'", { user: s.realm.guest });
    await sendChannelMessage(s, s.realm.guest, "guests", "t", "hi");
  });

  it("lets a bot post where its owner is subscribed", async () => {
    const priv = await makeChannel(s, "bot-home", { subscribers: [s.realm.member], invite_only: true });
    await sendChannelMessage(s, s.realm.bot, priv.name, "t", "beep");
  });

  it("enforces the channel's can_send_message_group", async () => {
    const admins = await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", "role:administrators").executeTakeFirstOrThrow();
    await s.db.updateTable("channels").set({ can_send_message_group_id: admins.id }).where("id", "=", channel.id).execute();
    try {
      await expectSendError({ type: "stream", to: "design", topic: "t", content: "x" }, "You do not have permission to post in this channel.");
      await sendChannelMessage(s, s.realm.admin, "design", "t", "announcement");
    } finally {
      await s.db.updateTable("channels").set({ can_send_message_group_id: null }).where("id", "=", channel.id).execute();
    }
  });

  it("sets mention flags from the rendered content", async () => {
    const { member, other, owner, admin } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "mentions", "hi @**Otto Other**, see `@**Olivia Owner**`");
    const flags = await flagsOf(id);
    expect(flags.get(other.id)).toBe(8);
    expect(flags.get(owner.id)).toBe(0);
    const wild = await sendChannelMessage(s, admin, "design", "mentions", "@**all** look");
    const wflags = await flagsOf(wild);
    expect(wflags.get(other.id)).toBe(16);
    expect(wflags.get(admin.id)).toBe(1 | 16);
    const res = await s.api.get(other, `/messages/${wild}`);
    expect(expectSuccess(res).message.flags).toEqual(["stream_wildcard_mentioned", "wildcard_mentioned"]);
    // Topic wildcard: only users who posted in the topic.
    const topicWild = await sendChannelMessage(s, owner, "design", "mentions", "@**topic** update");
    const tflags = await flagsOf(topicWild);
    expect(tflags.get(member.id)).toBe(32);
    expect(tflags.get(admin.id)).toBe(32);
    expect(tflags.get(owner.id)).toBe(1 | 32);
    expect(tflags.get(other.id)).toBe(0);
  });

  it("flags members of mentioned groups, and alert words", async () => {
    const { member, other, owner } = s.realm;
    const { id: groupId } = await s.db
      .insertInto("user_groups")
      .values({ realm_id: s.realm.realm.id, name: "reviewers", date_created: 0 })
      .returning("id")
      .executeTakeFirstOrThrow();
    await s.db.insertInto("user_group_members").values({ realm_id: s.realm.realm.id, group_id: groupId, user_id: other.id }).execute();
    await s.db.insertInto("alert_words").values({ realm_id: s.realm.realm.id, user_id: owner.id, word: "deploy" }).execute();
    const id = await sendChannelMessage(s, member, "design", "groups", "@*reviewers* please Deploy now");
    const flags = await flagsOf(id);
    expect(flags.get(other.id)).toBe(8);
    expect(flags.get(owner.id)).toBe(64);
  });
});

describe("POST /messages mention permissions", () => {
  it("limits wildcard mentions in big channels and topics", async () => {
    const extra = [];
    for (let i = 0; i < 12; i++) {
      extra.push(await doCreateUser(s.ctx, s.realm.realm, { email: `crowd${i}@example.com`, fullName: `Crowd ${i}`, password: null, role: Role.MEMBER }));
    }
    const { owner, admin, member, other, moderator } = s.realm;
    await makeChannel(s, "crowd", { subscribers: [owner, admin, member, other, ...extra] });
    await sendChannelMessage(s, member, "design", "t", "@**all** small channels are fine");
    const err = await expectSendError({ type: "stream", to: "crowd", topic: "t", content: "@**everyone** hi" }, "You do not have permission to use channel wildcard mentions in this channel.", { code: "STREAM_WILDCARD_MENTION_NOT_ALLOWED" });
    expect(err.code).toBe("STREAM_WILDCARD_MENTION_NOT_ALLOWED");
    await sendChannelMessage(s, admin, "crowd", "t", "@**all** admins may");
    await sendChannelMessage(s, member, "crowd", "t", "@_**all** silent wildcards are not mentions");
    // Topic wildcards count the topic's participants.
    for (const u of [...extra, owner, admin, other]) await sendChannelMessage(s, u, "crowd", "busy", "me too");
    await expectSendError({ type: "stream", to: "crowd", topic: "busy", content: "@**topic** hi" }, "You do not have permission to use topic wildcard mentions in this topic.", { code: "TOPIC_WILDCARD_MENTION_NOT_ALLOWED" });
    await sendChannelMessage(s, member, "crowd", "quiet", "@**topic** fine here");
    await sendChannelMessage(s, moderator, "design", "t", "ok");
  });

  it("checks the mentioned group's can_mention_group", async () => {
    const nobody = await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", "role:nobody").executeTakeFirstOrThrow();
    await s.db.insertInto("user_groups").values({ realm_id: s.realm.realm.id, name: "quiet-team", date_created: 0, can_mention_group_id: nobody.id }).execute();
    await expectSendError({ type: "stream", to: "design", topic: "t", content: "ping @*quiet-team*" }, "You are not allowed to mention user group 'quiet-team'.");
    await sendChannelMessage(s, s.realm.member, "design", "t", "silent @_*quiet-team* is fine");
  });
});

describe("POST /messages to people", () => {
  it("sends a 1:1 message by ids, emails or a comma list", async () => {
    published = [];
    const { member, other } = s.realm;
    const id = await sendDirectMessage(s, member, [other], "hi");
    const row = await s.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.channel_id).toBeNull();
    expect(row.topic).toBe("");
    const recipient = await s.db.selectFrom("recipients").selectAll().where("id", "=", row.recipient_id).executeTakeFirstOrThrow();
    expect(recipient).toMatchObject({ type: 1, type_id: other.id });
    expect(await flagsOf(id)).toEqual(new Map([[member.id, 1 | 256], [other.id, 256]]));
    const ev = published.filter((p) => p.event.type === "message");
    expect(ev.map((e) => e.userIds)).toEqual(expect.arrayContaining([[member.id], [other.id]]));
    expect(ev.find((e) => e.userIds[0] === member.id)!.event.flags).toEqual(["read"]);

    const byEmail = expectSuccess(await s.api.post(member, "/messages", { type: "private", to: JSON.stringify([other.delivery_email]), content: "x" })).id;
    const byComma = expectSuccess(await s.api.post(member, "/messages", { type: "direct", to: `${other.delivery_email.toUpperCase()}`, content: "x" })).id;
    const rows = await s.db.selectFrom("messages").select("recipient_id").where("id", "in", [byEmail, byComma]).execute();
    expect(rows.map((r) => r.recipient_id)).toEqual([row.recipient_id, row.recipient_id]);
    // The reply from the other side uses the sender's personal recipient.
    const reply = await sendDirectMessage(s, other, [member], "hello back");
    expect(await flagsOf(reply)).toEqual(new Map([[member.id, 256], [other.id, 257]]));
  });

  it("sends to oneself and to groups (sender included once)", async () => {
    const { member, other, owner } = s.realm;
    const self = await sendDirectMessage(s, member, [member], "note to self");
    expect(await flagsOf(self)).toEqual(new Map([[member.id, 257]]));
    const g1 = await sendDirectMessage(s, member, [other, owner], "group");
    const g2 = await sendDirectMessage(s, owner, [member, other, owner], "group again");
    const rows = await s.db.selectFrom("messages").select(["id", "recipient_id"]).where("id", "in", [g1, g2]).orderBy("id").execute();
    expect(rows[0].recipient_id).toBe(rows[1].recipient_id);
    expect([...(await flagsOf(g1)).keys()].sort()).toEqual([member.id, other.id, owner.id].sort());
    const group = await s.db.selectFrom("direct_message_groups").selectAll().where("recipient_id", "=", rows[0].recipient_id).executeTakeFirstOrThrow();
    expect(group.member_key).toBe([member.id, other.id, owner.id].sort((a, b) => a - b).join(","));
  });

  it("honours read_by_sender", async () => {
    const { id } = expectSuccess(await s.api.post(s.realm.member, "/messages", { type: "direct", to: [s.realm.other.id], content: "x", read_by_sender: false }));
    expect((await flagsOf(id)).get(s.realm.member.id)).toBe(256);
    await expectSendError({ type: "direct", to: [s.realm.other.id], content: "x", read_by_sender: "yes" }, "read_by_sender is not valid JSON");
  });

  it("passes local_id and queue_id to the sender's event", async () => {
    published = [];
    expectSuccess(await s.api.post(s.realm.member, "/messages", { type: "direct", to: [s.realm.other.id], content: "x", local_id: "12.01", queue_id: "q-1" }));
    const mine = published.find((p) => p.event.type === "message" && p.userIds.includes(s.realm.member.id))!;
    expect(mine.event.internal_data).toMatchObject({ local_message_id: "12.01", sender_queue_id: "q-1" });
    const theirs = published.find((p) => p.event.type === "message" && p.userIds.includes(s.realm.other.id))!;
    expect((theirs.event.internal_data as Record<string, unknown>).local_message_id).toBeUndefined();
  });

  it("rejects bad recipient lists", async () => {
    const { other, owner } = s.realm;
    await expectSendError({ type: "direct", content: "x" }, "Message must have recipients");
    await expectSendError({ type: "direct", to: "[]", content: "x" }, "Message must have recipients");
    await expectSendError({ type: "direct", to: "5", content: "x" }, "Invalid data type for recipients");
    await expectSendError({ type: "direct", to: "[{}]", content: "x" }, "Invalid data type for recipients");
    await expectSendError({ type: "direct", to: JSON.stringify([other.id, owner.delivery_email]), content: "x" }, "Recipient lists may contain emails or user IDs, but not both.");
    await expectSendError({ type: "direct", to: JSON.stringify([owner.delivery_email, other.id]), content: "x" }, "Recipient lists may contain emails or user IDs, but not both.");
    await expectSendError({ type: "direct", to: [99999], content: "x" }, "Invalid user ID 99999");
    await expectSendError({ type: "direct", to: "nobody@example.com", content: "x" }, "Invalid email 'nobody@example.com'");
    await expectSendError({ type: "direct", to: [s.other.member.id], content: "x" }, `Invalid user ID ${s.other.member.id}`);
    await expectSendError({ type: "direct", to: s.other.member.delivery_email, content: "x" }, `Invalid email '${s.other.member.delivery_email}'`);
  });

  it("rejects deactivated recipients (after content checks)", async () => {
    const { other } = s.realm;
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", other.id).execute();
    try {
      await expectSendError({ type: "direct", to: [other.id], content: "" }, "Message must not be empty");
      await expectSendError({ type: "direct", to: [other.id], content: "x" }, `'${other.delivery_email}' is no longer using Parley.`);
    } finally {
      await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", other.id).execute();
    }
  });

  it("enforces the direct-message permission group", async () => {
    const groups = await s.db.selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", s.realm.realm.id).where("is_system_group", "=", 1).execute();
    const id = (n: string) => groups.find((g) => g.name === n)!.id;
    const setGroup = (g: number) => s.db.updateTable("realms").set({ direct_message_permission_group_id: g }).where("id", "=", s.realm.realm.id).execute();
    try {
      await setGroup(id("role:nobody"));
      await expectSendError({ type: "direct", to: [s.realm.other.id], content: "x" }, "You are not allowed to send direct messages in this organization.");
      await sendDirectMessage(s, s.realm.member, [s.realm.bot], "bots are fine");
      await sendDirectMessage(s, s.realm.member, [s.realm.member], "self is fine");
      await setGroup(id("role:administrators"));
      await expectSendError({ type: "direct", to: [s.realm.other.id], content: "x" }, "This conversation does not include any users who can authorize it.");
      await sendDirectMessage(s, s.realm.member, [s.realm.admin], "an admin authorizes it");
    } finally {
      await setGroup(id("role:everyone"));
    }
  });

  it("requires authentication", async () => {
    const res = await s.api.post(null, "/messages", { type: "direct", to: [s.realm.other.id], content: "x" });
    expect(res.statusCode).toBe(401);
  });
});
