/**
 * The realm's notification bot and the notices it sends: message moves, resolved
 * topics, subscriptions by others and new-channel announcements.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage } from "../support/messages.js";
import { register } from "../support/events.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { Message, User } from "../../src/db/schema.js";
import { ensureNotificationBot, internalSendMessage } from "../../src/actions/internal-messages.js";
import { channelTopicLinkSyntax } from "../../src/lib/notification-bot.js";

let s: TestServer;
let bot: User;
let published: PublishedEvent[] = [];
let design: { id: number; recipient_id: number; name: string };
let archive: { id: number; recipient_id: number; name: string };
let general: { id: number; recipient_id: number | null };

const READ = 1;

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, admin, moderator, member, other } = s.realm;
  design = await makeChannel(s, "design", { subscribers: [owner, admin, moderator, member, other] });
  archive = await makeChannel(s, "archive", { subscribers: [owner, admin, member] });
  bot = await s.db.selectFrom("users").selectAll().where("id", "=", s.realm.realm.notification_bot_id!).executeTakeFirstOrThrow();
  general = await s.db
    .selectFrom("channels")
    .select(["id", "recipient_id"])
    .where("realm_id", "=", s.realm.realm.id)
    .where("name", "=", "general")
    .executeTakeFirstOrThrow();
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const mention = (u: User) => `@_**${u.full_name}|${u.id}**`;
const realmUrl = () => `http://${s.realm.host}`;

/** Messages the bot sent after `afterId`, oldest first. */
const botMessages = (afterId = 0): Promise<Message[]> =>
  s.db.selectFrom("messages").selectAll().where("sender_id", "=", bot.id).where("id", ">", afterId).orderBy("id").execute();
const lastMessageId = async () =>
  Number((await s.db.selectFrom("messages").select((eb) => eb.fn.max("id").as("m")).executeTakeFirstOrThrow()).m ?? 0);
const flagsOf = async (messageId: number) =>
  Object.fromEntries(
    (await s.db.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", messageId).execute()).map((r) => [r.user_id, r.flags]),
  );
const move = (user: User, id: number, params: Record<string, unknown>) => s.api.patch(user, `/messages/${id}`, params);

describe("the notification bot", () => {
  it("is created with the realm: an ownerless generic bot without password, in no group or channel", async () => {
    expect(bot).toMatchObject({
      realm_id: s.realm.realm.id,
      full_name: "Notification Bot",
      delivery_email: `notification-bot@${s.realm.host.replace(/:\d+$/, "")}`,
      is_bot: 1,
      bot_type: 1,
      bot_owner_id: null,
      password_hash: null,
      is_active: 1,
      role: 400,
    });
    expect(bot.api_key).toMatch(/^\S{32,}$/);
    const groups = await s.db.selectFrom("user_group_members").select("group_id").where("user_id", "=", bot.id).execute();
    expect(groups).toEqual([]);
    const subs = await s.db.selectFrom("subscriptions").select("id").where("user_id", "=", bot.id).execute();
    expect(subs).toEqual([]);
    // Each realm has its own bot.
    expect(s.other.realm.notification_bot_id).not.toBeNull();
    expect(s.other.realm.notification_bot_id).not.toBe(bot.id);
    expect(s.realm.realm.new_stream_announcements_stream_id).toBe(general.id);
  });

  it("cannot be changed, deactivated or reactivated by administrators: it is no member", async () => {
    const { owner } = s.realm;
    const before = await s.db.selectFrom("users").selectAll().where("id", "=", bot.id).executeTakeFirstOrThrow();
    expectError(await s.api.patch(owner, `/users/${bot.id}`, { full_name: "Renamed Bot" }), "No such user");
    expectError(await s.api.patch(owner, `/users/${bot.id}`, { role: 200 }), "No such user");
    expectError(await s.api.delete(owner, `/users/${bot.id}`), "No such user");
    expectError(await s.api.post(owner, `/users/${bot.id}/reactivate`), "No such user");
    const after = await s.db.selectFrom("users").selectAll().where("id", "=", bot.id).executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it("is not a member in GET /users, and shows as a system bot by id", async () => {
    const members = expectSuccess(await s.api.get(s.realm.owner, "/users")).members as Array<Record<string, unknown>>;
    expect(members.map((m) => m.user_id)).not.toContain(bot.id);
    expect(members.map((m) => m.user_id)).toContain(s.realm.bot.id);
    const one = expectSuccess(await s.api.get(s.realm.member, `/users/${bot.id}`)).user;
    expect(one).toMatchObject({ user_id: bot.id, is_bot: true, bot_type: 1, bot_owner_id: null, is_system_bot: true, full_name: "Notification Bot" });
    expect(one).not.toHaveProperty("api_key");
  });

  it("is listed in /register's cross_realm_bots only, never in realm_users or realm_bots", async () => {
    const state = await register(s, s.realm.owner);
    const ids = (list: Array<Record<string, unknown>>) => list.map((u) => u.user_id);
    expect(ids(state.realm_users)).not.toContain(bot.id);
    expect(ids(state.realm_non_active_users)).not.toContain(bot.id);
    expect(ids(state.realm_bots)).not.toContain(bot.id);
    expect(ids(state.realm_bots)).toContain(s.realm.bot.id);
    expect(state.cross_realm_bots).toHaveLength(1);
    expect(state.cross_realm_bots[0]).toMatchObject({
      user_id: bot.id,
      email: bot.delivery_email,
      full_name: "Notification Bot",
      is_bot: true,
      bot_type: 1,
      bot_owner_id: null,
      is_system_bot: true,
      is_active: true,
    });
    expect(JSON.stringify(state)).not.toContain(bot.api_key);
    expect(state.realm_new_stream_announcements_stream_id).toBe(general.id);
  });

  it("posts to any active channel, even private ones it is not subscribed to, but not to archived ones", async () => {
    const secret = await makeChannel(s, "bot-secret", { subscribers: [s.realm.owner], invite_only: true });
    const id = await internalSendMessage(s.ctx, s.realm.realm, { to: { channel: { id: secret.id }, topic: "hello" }, content: "Hi **there**" });
    expect(id).not.toBeNull();
    const row = await s.db.selectFrom("messages").selectAll().where("id", "=", id!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sender_id: bot.id, channel_id: secret.id, topic: "hello", content: "Hi **there**", sending_client: "Internal" });
    expect(row.rendered_content).toBe("<p>Hi <strong>there</strong></p>");
    expect(await flagsOf(id!)).toEqual({ [s.realm.owner.id]: 0 });

    await s.db.updateTable("channels").set({ deactivated: 1 }).where("id", "=", secret.id).execute();
    const before = await lastMessageId();
    expect(await internalSendMessage(s.ctx, s.realm.realm, { to: { channel: { id: secret.id }, topic: "hello" }, content: "no" })).toBeNull();
    expect(await lastMessageId()).toBe(before);
  });

  it("sends direct messages, and is created on first use in realms that have none", async () => {
    const realm = s.other.realm;
    const old = realm.notification_bot_id!;
    // A realm from before the bot existed.
    await s.db.updateTable("users").set({ delivery_email: "retired-bot@example.com" }).where("id", "=", old).execute();
    await s.db.updateTable("realms").set({ notification_bot_id: null }).where("id", "=", realm.id).execute();
    const id = await internalSendMessage(s.ctx, { ...realm, notification_bot_id: null }, { to: { users: [s.other.member] }, content: "psst" });
    const row = await s.db.selectFrom("realms").select("notification_bot_id").where("id", "=", realm.id).executeTakeFirstOrThrow();
    expect(row.notification_bot_id).not.toBeNull();
    expect(row.notification_bot_id).not.toBe(old);
    const msg = await s.db.selectFrom("messages").selectAll().where("id", "=", id!).executeTakeFirstOrThrow();
    expect(msg).toMatchObject({ sender_id: row.notification_bot_id, channel_id: null, content: "psst", realm_id: realm.id });
    // Sender's copy read, the recipient's unread; both are direct-message rows.
    expect(await flagsOf(id!)).toEqual({ [row.notification_bot_id!]: READ | 256, [s.other.member.id]: 256 });
    // Asked again, the same bot.
    const again = await ensureNotificationBot(s.ctx, { ...realm, notification_bot_id: null });
    expect(again.bot.id).toBe(row.notification_bot_id);
  });
});

describe("PATCH /messages/{message_id}: move notices", () => {
  it("a whole-topic move posts 'This topic was moved here' in the new topic only (upstream defaults)", async () => {
    const { member, other, owner } = s.realm;
    const first = await sendChannelMessage(s, member, "design", "old plans", "one");
    await sendChannelMessage(s, other, "design", "old plans", "two");
    const mark = await lastMessageId();
    expectSuccess(await move(member, first, { topic: "new plans", propagate_mode: "change_all" }));
    const notices = await botMessages(mark);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      channel_id: design.id,
      topic: "new plans",
      content: `This topic was moved here from #**design>old plans** by ${mention(member)}.`,
    });
    const flags = await flagsOf(notices[0]!.id);
    expect(flags[member.id]).toBe(READ);
    expect(flags[other.id]).toBe(0);
    expect(flags[owner.id]).toBe(0);
    expect(flags[bot.id]).toBeUndefined();
    // The message event reaches the channel's subscribers, sent by the bot.
    const event = published.find((p) => p.event.type === "message" && (p.event as any).message.id === notices[0]!.id)!;
    expect((event.event as any).message).toMatchObject({ sender_id: bot.id, sender_full_name: "Notification Bot", subject: "new plans" });
  });

  it("moving one message: a link to it in the new topic, and the old-thread notice when asked", async () => {
    const { member, other } = s.realm;
    const a = await sendChannelMessage(s, member, "design", "split me", "a");
    await sendChannelMessage(s, other, "design", "split me", "b");
    const mark = await lastMessageId();
    expectSuccess(
      await move(member, a, { topic: "split off", propagate_mode: "change_one", send_notification_to_old_thread: true, send_notification_to_new_thread: true }),
    );
    const [newNotice, oldNotice] = await botMessages(mark);
    expect(newNotice).toMatchObject({
      topic: "split off",
      content: `[A message](${realmUrl()}/#narrow/channel/${design.id}-design/topic/split.20off/near/${a}) was moved here from #**design>split me** by ${mention(member)}.`,
    });
    expect(oldNotice).toMatchObject({
      topic: "split me",
      content: `A message was moved from this topic to #**design>split off** by ${mention(member)}.`,
    });
    expect((await flagsOf(oldNotice!.id))[member.id]).toBe(READ);
    expect((await flagsOf(oldNotice!.id))[other.id]).toBe(0);
  });

  it("moving several messages counts them; into a topic with messages it is never 'This topic'", async () => {
    const { member, other } = s.realm;
    await sendChannelMessage(s, member, "design", "many", "m1");
    const m2 = await sendChannelMessage(s, other, "design", "many", "m2");
    await sendChannelMessage(s, member, "design", "many", "m3");
    await sendChannelMessage(s, member, "design", "target", "already here");
    let mark = await lastMessageId();
    expectSuccess(await move(member, m2, { topic: "target", propagate_mode: "change_later", send_notification_to_old_thread: true }));
    let [newNotice, oldNotice] = await botMessages(mark);
    expect(newNotice!.content).toBe(`2 messages were moved here from #**design>many** by ${mention(member)}.`);
    expect(newNotice!.topic).toBe("target");
    expect(oldNotice!.content).toBe(`2 messages were moved from this topic to #**design>target** by ${mention(member)}.`);
    expect(oldNotice!.topic).toBe("many");

    // The rest of the topic (m1 and the old-thread notice) moves into a topic that has messages.
    const m1 = (await s.db.selectFrom("messages").select("id").where("topic", "=", "many").orderBy("id").executeTakeFirstOrThrow()).id;
    mark = await lastMessageId();
    expectSuccess(await move(member, m1, { topic: "target", propagate_mode: "change_all", send_notification_to_old_thread: true }));
    [newNotice, oldNotice] = await botMessages(mark);
    expect(newNotice!.content).toBe(`2 messages were moved here from #**design>many** by ${mention(member)}.`);
    expect(oldNotice!.content).toBe(`This topic was moved to #**design>target** by ${mention(member)}.`);
    expect(oldNotice!.topic).toBe("many");
  });

  it("moving to another channel notifies both channels' subscribers", async () => {
    const { member, other, owner } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "travels", "going places");
    const mark = await lastMessageId();
    expectSuccess(await move(owner, id, { stream_id: archive.id, propagate_mode: "change_all", send_notification_to_old_thread: true }));
    const [newNotice, oldNotice] = await botMessages(mark);
    expect(newNotice).toMatchObject({
      channel_id: archive.id,
      topic: "travels",
      content: `This topic was moved here from #**design>travels** by ${mention(owner)}.`,
    });
    expect(oldNotice).toMatchObject({
      channel_id: design.id,
      topic: "travels",
      content: `This topic was moved to #**archive>travels** by ${mention(owner)}.`,
    });
    const newFlags = await flagsOf(newNotice!.id);
    expect(Object.keys(newFlags).map(Number).sort()).toEqual([s.realm.owner.id, s.realm.admin.id, member.id].sort((a, b) => a - b));
    expect(newFlags[owner.id]).toBe(READ);
    expect((await flagsOf(oldNotice!.id))[other.id]).toBe(0);
  });

  it("sends nothing when both notifications are off, and nothing for content edits", async () => {
    const { member } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "quiet", "shh");
    const mark = await lastMessageId();
    expectSuccess(await move(member, id, { topic: "quieter", send_notification_to_new_thread: false, send_notification_to_old_thread: false }));
    expectSuccess(await move(member, id, { content: "edited" }));
    expect(await botMessages(mark)).toEqual([]);
  });

  it("topic names that would break #**…** links fall back to markdown links", async () => {
    const { member } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "a*b", "stars");
    const mark = await lastMessageId();
    expectSuccess(await move(member, id, { topic: "plain", propagate_mode: "change_all" }));
    const [notice] = await botMessages(mark);
    expect(notice!.content).toBe(
      `This topic was moved here from [#design > a&#42;b](#narrow/channel/${design.id}-design/topic/a*b) by ${mention(member)}.`,
    );
    expect(channelTopicLinkSyntax({ id: 7, name: "x [y]" }, "t")).toBe("[#x &#91;y&#93; > t](#narrow/channel/7-x-.5By.5D/topic/t)");
  });
});

describe("PATCH /messages/{message_id}: resolve notices", () => {
  it("resolving posts '… has marked this topic as resolved.', unread only for the topic's followers", async () => {
    const { member, other, owner, admin } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "bug 12", "it crashes");
    await s.db
      .insertInto("user_topics")
      .values({ realm_id: s.realm.realm.id, user_id: other.id, channel_id: design.id, topic_name: "bug 12", topic_key: "bug 12", visibility_policy: 3, last_updated: 1 })
      .execute();
    let mark = await lastMessageId();
    expectSuccess(await move(admin, id, { topic: "✔ bug 12", propagate_mode: "change_all" }));
    let notices = await botMessages(mark);
    // No "moved" notice for a resolve, even with send_notification_to_new_thread's default.
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ channel_id: design.id, topic: "✔ bug 12", content: `${mention(admin)} has marked this topic as resolved.` });
    const flags = await flagsOf(notices[0]!.id);
    expect(flags[admin.id]).toBe(READ);
    expect(flags[other.id]).toBe(0);
    expect(flags[owner.id]).toBe(READ);
    expect(flags[member.id]).toBe(READ);

    mark = await lastMessageId();
    expectSuccess(await move(member, id, { topic: "bug 12", propagate_mode: "change_all" }));
    notices = await botMessages(mark);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ topic: "bug 12", content: `${mention(member)} has marked this topic as unresolved.` });
    expect((await flagsOf(notices[0]!.id))[member.id]).toBe(READ);
  });

  it("with send_notification_to_old_thread a resolve also tells the old topic where it went (as upstream)", async () => {
    const { member } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "bug 13", "slow");
    const mark = await lastMessageId();
    expectSuccess(await move(member, id, { topic: "✔ bug 13", propagate_mode: "change_all", send_notification_to_old_thread: true }));
    const notices = await botMessages(mark);
    expect(notices.map((n) => [n.topic, n.content])).toEqual([
      ["✔ bug 13", `${mention(member)} has marked this topic as resolved.`],
      ["bug 13", `This topic was moved to #**design>✔ bug 13** by ${mention(member)}.`],
    ]);
  });
});

describe("POST /users/me/subscriptions: notices", () => {
  it("subscribing others to existing channels sends each human a direct message", async () => {
    const { admin, member, other } = s.realm;
    await makeChannel(s, "alpha", { subscribers: [admin] });
    await makeChannel(s, "beta", { subscribers: [admin] });
    const mark = await lastMessageId();
    const res = await s.api.post(admin, "/users/me/subscriptions", {
      subscriptions: [{ name: "beta" }, { name: "alpha" }],
      principals: [member.id, other.id, s.realm.bot.id, admin.id],
    });
    expectSuccess(res);
    const notices = await botMessages(mark);
    expect(notices).toHaveLength(2);
    for (const [i, user] of [member, other].entries()) {
      const n = notices[i]!;
      expect(n.channel_id).toBeNull();
      expect(n.content).toBe(`${mention(admin)} subscribed you to the following channels:\n\n* #**alpha**\n* #**beta**`);
      expect(await flagsOf(n.id)).toEqual({ [bot.id]: READ | 256, [user.id]: 256 });
    }
  });

  it("one channel: '… subscribed you to #**name**.'; nothing when subscribing oneself", async () => {
    const { admin, member } = s.realm;
    await makeChannel(s, "gamma", { subscribers: [admin] });
    let mark = await lastMessageId();
    expectSuccess(await s.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "gamma" }], principals: [member.id] }));
    const [n] = await botMessages(mark);
    expect(n!.content).toBe(`${mention(admin)} subscribed you to #**gamma**.`);
    await makeChannel(s, "delta", { subscribers: [admin] });
    mark = await lastMessageId();
    expectSuccess(await s.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "delta" }] }));
    expectSuccess(await s.api.post(member, "/users/me/subscriptions", { subscriptions: [{ name: "delta" }], principals: [member.id] }));
    expect(await botMessages(mark)).toEqual([]);
  });

  it("creating channels: no direct messages about them; announce posts in the announcements channel", async () => {
    const { admin, member, owner } = s.realm;
    let mark = await lastMessageId();
    expectSuccess(await s.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "fresh" }], principals: [member.id, admin.id] }));
    expect(await botMessages(mark)).toEqual([]);

    mark = await lastMessageId();
    expectSuccess(await s.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "news" }], announce: true }));
    const news = await s.db.selectFrom("channels").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", "news").executeTakeFirstOrThrow();
    let notices = await botMessages(mark);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ channel_id: general.id, topic: "new channels", content: `${mention(admin)} created a new channel #**news**.` });
    const flags = await flagsOf(notices[0]!.id);
    expect(flags[admin.id]).toBe(READ);
    expect(flags[owner.id]).toBe(0);
    expect(flags[member.id]).toBe(0);
    expect(news.id).toBeGreaterThan(0);

    mark = await lastMessageId();
    expectSuccess(await s.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "n1" }, { name: "n2" }, { name: "news" }], announce: true }));
    notices = await botMessages(mark);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.content).toBe(`${mention(admin)} created the following channels: #**n1**, #**n2**.`);
  });

  it("announce does nothing without new channels or without an announcements channel", async () => {
    const { admin } = s.realm;
    const mark = await lastMessageId();
    expectSuccess(await s.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "news" }], announce: true }));
    await s.db.updateTable("realms").set({ new_stream_announcements_stream_id: null }).where("id", "=", s.realm.realm.id).execute();
    try {
      expectSuccess(await s.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "unannounced" }], announce: true }));
      expect(await botMessages(mark)).toEqual([]);
    } finally {
      await s.db.updateTable("realms").set({ new_stream_announcements_stream_id: general.id }).where("id", "=", s.realm.realm.id).execute();
    }
  });
});
