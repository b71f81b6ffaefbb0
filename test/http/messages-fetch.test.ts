import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, sendDirectMessage, subscribe } from "../support/messages.js";
import { avatarUrl } from "../../src/lib/avatar.js";

let s: TestServer;
let design: { id: number; recipient_id: number; name: string };
let ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  const { owner, admin, member, other, guest } = s.realm;
  design = await makeChannel(s, "design", { subscribers: [owner, admin, member, other] });
  await makeChannel(s, "secret", { subscribers: [owner, member], invite_only: true });
  await makeChannel(s, "vault", { subscribers: [owner], invite_only: true, history_public_to_subscribers: false });
  await makeChannel(s, "lobby", { subscribers: [guest, owner] });
  ids = {
    d1: await sendChannelMessage(s, member, "design", "alpha", "first **one**"),
    d2: await sendChannelMessage(s, other, "design", "beta", "second message"),
    dm: await sendDirectMessage(s, other, [member], "private hello"),
    d3: await sendChannelMessage(s, owner, "design", "alpha", "third @**Mary Member**"),
    sec: await sendChannelMessage(s, owner, "secret", "plans", "secret stuff"),
    v1: await sendChannelMessage(s, owner, "vault", "old", "before you joined"),
    grp: await sendDirectMessage(s, owner, [member, other], "group chat"),
    empty: await sendChannelMessage(s, member, "design", "", "no topic here"),
    lobby: await sendChannelMessage(s, owner, "lobby", "welcome", "hi guests"),
  };
});
afterAll(() => s.close());

describe("GET /messages/{message_id}", () => {
  it("returns every field of a channel message", async () => {
    const { member } = s.realm;
    const body = expectSuccess(await s.api.get(member, `/messages/${ids.d1}`));
    expect(body.raw_content).toBe("first **one**");
    expect(body.message).toEqual({
      id: ids.d1,
      sender_id: member.id,
      content: "<p>first <strong>one</strong></p>",
      recipient_id: design.recipient_id,
      timestamp: expect.any(Number),
      client: expect.any(String),
      subject: "alpha",
      topic_links: [],
      is_me_message: false,
      reactions: [],
      submessages: [],
      sender_full_name: "Mary Member",
      sender_email: member.delivery_email,
      sender_realm_str: "",
      display_recipient: "design",
      type: "stream",
      stream_id: design.id,
      avatar_url: null,
      content_type: "text/html",
      flags: ["read"],
    });
  });

  it("returns raw Markdown with apply_markdown=false and the viewer's flags", async () => {
    const body = expectSuccess(await s.api.get(s.realm.member, `/messages/${ids.d3}`, { apply_markdown: false }));
    expect(body.message.content).toBe("third @**Mary Member**");
    expect(body.message.content_type).toBe("text/x-markdown");
    expect(body.message.flags).toEqual(["mentioned"]);
  });

  it("shows direct messages with their participants sorted by id", async () => {
    const { owner, member, other } = s.realm;
    const body = expectSuccess(await s.api.get(member, `/messages/${ids.grp}`));
    expect(body.message.type).toBe("private");
    expect(body.message.stream_id).toBeUndefined();
    expect(body.message.subject).toBe("");
    expect(body.message.display_recipient).toEqual(
      [owner, member, other]
        .sort((a, b) => a.id - b.id)
        .map((u) => ({ id: u.id, email: u.delivery_email, full_name: u.full_name, is_mirror_dummy: false })),
    );
    const oneToOne = expectSuccess(await s.api.get(member, `/messages/${ids.dm}`)).message;
    expect(oneToOne.display_recipient.map((u: { id: number }) => u.id)).toEqual([member.id, other.id].sort((a, b) => a - b));
  });

  it("replaces the empty topic unless allow_empty_topic_name", async () => {
    expect(expectSuccess(await s.api.get(s.realm.member, `/messages/${ids.empty}`)).message.subject).toBe("general chat");
    expect(expectSuccess(await s.api.get(s.realm.member, `/messages/${ids.empty}`, { allow_empty_topic_name: true })).message.subject).toBe("");
  });

  it("gives read and historical flags to viewers without a row", async () => {
    const body = expectSuccess(await s.api.get(s.realm.moderator, `/messages/${ids.d2}`));
    expect(body.message.flags).toEqual(["read", "historical"]);
  });

  it("hides messages the caller may not read", async () => {
    const { moderator, member, guest, other, owner } = s.realm;
    const invalid = (res: Awaited<ReturnType<typeof s.api.get>>) => expectError(res, "Invalid message(s)");
    invalid(await s.api.get(moderator, `/messages/${ids.sec}`));
    invalid(await s.api.get(moderator, `/messages/${ids.dm}`));
    invalid(await s.api.get(owner, `/messages/${ids.dm}`));
    invalid(await s.api.get(guest, `/messages/${ids.d1}`));
    invalid(await s.api.get(member, "/messages/999999"));
    invalid(await s.api.get(s.other.owner, `/messages/${ids.d1}`));
    expectSuccess(await s.api.get(member, `/messages/${ids.sec}`));
    expectSuccess(await s.api.get(guest, `/messages/${ids.lobby}`));
    // Private channel with protected history: subscribing later does not reveal older messages.
    const vault = await s.db.selectFrom("channels").select("recipient_id").where("name", "=", "vault").executeTakeFirstOrThrow();
    await subscribe(s, vault.recipient_id!, [other]);
    invalid(await s.api.get(other, `/messages/${ids.v1}`));
    const later = await sendChannelMessage(s, owner, "vault", "new", "after you joined");
    expectSuccess(await s.api.get(other, `/messages/${later}`));
    // History-public private channel: subscribers see older messages.
    const secret = await s.db.selectFrom("channels").select("recipient_id").where("name", "=", "secret").executeTakeFirstOrThrow();
    await subscribe(s, secret.recipient_id!, [moderator]);
    expect(expectSuccess(await s.api.get(moderator, `/messages/${ids.sec}`)).message.flags).toEqual(["read", "historical"]);
  });

  it("includes reactions, submessages, edit history and edit timestamps", async () => {
    const { member, other, owner } = s.realm;
    const realmId = s.realm.realm.id;
    const id = await sendChannelMessage(s, member, "design", "edited", "v2");
    await s.db.insertInto("reactions").values({ realm_id: realmId, message_id: id, user_id: other.id, emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" }).execute();
    await s.db.insertInto("submessages").values({ realm_id: realmId, message_id: id, sender_id: member.id, msg_type: "widget", content: "{}" }).execute();
    await s.db.insertInto("message_edits").values([
      { realm_id: realmId, message_id: id, user_id: member.id, timestamp: 1000, prev_content: "v1", prev_rendered_content: "<p>v1</p>" },
      { realm_id: realmId, message_id: id, user_id: owner.id, timestamp: 2000, prev_topic: "✔ edited", topic: "edited" },
      { realm_id: realmId, message_id: id, user_id: owner.id, timestamp: 1500, prev_topic: "", topic: "other" },
    ]).execute();
    const m = expectSuccess(await s.api.get(member, `/messages/${id}`)).message;
    expect(m.reactions).toEqual([
      { emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji", user_id: other.id },
    ]);
    expect(m.submessages).toEqual([{ id: expect.any(Number), message_id: id, sender_id: member.id, msg_type: "widget", content: "{}" }]);
    expect(m.last_edit_timestamp).toBe(1000);
    // Resolving a topic is not a move.
    expect(m.last_moved_timestamp).toBe(1500);
    expect(m.edit_history).toEqual([
      { user_id: owner.id, timestamp: 1500, prev_topic: "general chat", topic: "other" },
      { user_id: owner.id, timestamp: 2000, prev_topic: "✔ edited", topic: "edited" },
      { user_id: member.id, timestamp: 1000, prev_content: "v1", prev_rendered_content: "<p>v1</p>" },
    ]);
    await s.db.updateTable("realms").set({ allow_edit_history: 0 }).where("id", "=", realmId).execute();
    try {
      const hidden = expectSuccess(await s.api.get(member, `/messages/${id}`)).message;
      expect(hidden.edit_history).toBeUndefined();
      expect(hidden.last_edit_timestamp).toBe(1000);
    } finally {
      await s.db.updateTable("realms").set({ allow_edit_history: 1 }).where("id", "=", realmId).execute();
    }
    // Reactions and submessages come oldest first, whatever order an index would give.
    const more = [
      { realm_id: realmId, message_id: id, user_id: owner.id, emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji" },
      { realm_id: realmId, message_id: id, user_id: member.id, emoji_name: "heart", emoji_code: "2764", reaction_type: "unicode_emoji" },
      { realm_id: realmId, message_id: id, user_id: owner.id, emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" },
    ];
    for (const r of more) await s.db.insertInto("reactions").values(r).execute();
    await s.db.insertInto("submessages").values({ realm_id: realmId, message_id: id, sender_id: other.id, msg_type: "widget", content: "[1]" }).execute();
    const again = expectSuccess(await s.api.get(member, `/messages/${id}`)).message;
    expect(again.reactions.map((r: { user_id: number; emoji_name: string }) => [r.user_id, r.emoji_name])).toEqual([
      [other.id, "smile"],
      [owner.id, "tada"],
      [member.id, "heart"],
      [owner.id, "smile"],
    ]);
    expect(again.submessages.map((m: { content: string }) => m.content)).toEqual(["{}", "[1]"]);
  });

  it("shows avatar URLs of uploaded avatars and hidden emails", async () => {
    const { member, other } = s.realm;
    await s.db.updateTable("users").set({ email_address_visibility: 3 }).where("id", "=", other.id).execute();
    try {
      const m = expectSuccess(await s.api.get(member, `/messages/${ids.d2}`)).message;
      expect(m.sender_email).toBe(`user${other.id}@${s.realm.host}`);
      expect(m.avatar_url).toBe(avatarUrl(other));
    } finally {
      await s.db.updateTable("users").set({ email_address_visibility: 1 }).where("id", "=", other.id).execute();
    }
  });

  it("links topics with the realm's linkifiers", async () => {
    await s.db.insertInto("linkifiers").values({ realm_id: s.realm.realm.id, pattern: "#(?P<id>[0-9]+)", url_template: "https://tracker.example.com/{id}" }).execute();
    const id = await sendChannelMessage(s, s.realm.member, "design", "fix #123 now", "see topic");
    const m = expectSuccess(await s.api.get(s.realm.member, `/messages/${id}`)).message;
    expect(m.topic_links).toEqual([{ text: "#123", url: "https://tracker.example.com/123" }]);
    // The linkifiers come with the message's statement: a change shows on the next read.
    await s.db.updateTable("linkifiers").set({ url_template: "https://issues.example.com/{id}" }).where("realm_id", "=", s.realm.realm.id).execute();
    const changed = expectSuccess(await s.api.get(s.realm.member, `/messages/${id}`)).message;
    expect(changed.topic_links).toEqual([{ text: "#123", url: "https://issues.example.com/123" }]);
    // Two linkifiers matching the same text: the one first in the realm's order wins.
    await s.db.updateTable("linkifiers").set({ order: 5 }).where("realm_id", "=", s.realm.realm.id).execute();
    await s.db.insertInto("linkifiers").values({ realm_id: s.realm.realm.id, pattern: "#(?P<id>[0-9]+)", url_template: "https://first.example.com/{id}", order: 1 }).execute();
    expect(expectSuccess(await s.api.get(s.realm.member, `/messages/${id}`)).message.topic_links).toEqual([{ text: "#123", url: "https://first.example.com/123" }]);
    await s.db.deleteFrom("linkifiers").where("realm_id", "=", s.realm.realm.id).execute();
    expect(expectSuccess(await s.api.get(s.realm.member, `/messages/${id}`)).message.topic_links).toEqual([]);
  });

  it("validates parameters and requires authentication", async () => {
    expectError(await s.api.get(s.realm.member, `/messages/${ids.d1}`, { apply_markdown: "yes" }), "apply_markdown is not valid JSON");
    const res = await s.api.get(null, `/messages/${ids.d1}`);
    expect(res.statusCode).toBe(401);
  });
});

describe("GET /messages", () => {
  const get = (params: Record<string, unknown>, user = s.realm.member) => s.api.get(user, "/messages", params);
  const idsOf = (body: Record<string, any>) => body.messages.map((m: { id: number }) => m.id);

  it("returns the newest messages the user received", async () => {
    const body = expectSuccess(await get({ anchor: "newest", num_before: 100, num_after: 0 }));
    const received = await s.db.selectFrom("user_messages").select("message_id").where("user_id", "=", s.realm.member.id).orderBy("message_id").execute();
    expect(idsOf(body)).toEqual(received.map((r) => r.message_id));
    expect(body).toMatchObject({ found_anchor: false, found_oldest: true, found_newest: true, history_limited: false, anchor: 10000000000000000 });
    expect(body.messages[0].flags).toEqual(["read"]);
  });

  it("pages around an integer anchor", async () => {
    const all = idsOf(expectSuccess(await get({ anchor: "newest", num_before: 100 })));
    const mid = all[3];
    const around = expectSuccess(await get({ anchor: String(mid), num_before: 2, num_after: 2 }));
    expect(idsOf(around)).toEqual(all.slice(1, 6));
    expect(around).toMatchObject({ anchor: mid, found_anchor: true, found_oldest: false, found_newest: false });
    const without = expectSuccess(await get({ anchor: mid, num_before: 1, num_after: 1, include_anchor: false }));
    expect(idsOf(without)).toEqual([all[2], all[4]]);
    expect(without.found_anchor).toBe(false);
    const oldest = expectSuccess(await get({ anchor: "oldest", num_before: 5, num_after: 2 }));
    expect(idsOf(oldest)).toEqual(all.slice(0, 2));
    expect(oldest).toMatchObject({ anchor: 0, found_oldest: true, found_newest: false });
    const only = expectSuccess(await get({ anchor: mid }));
    expect(idsOf(only)).toEqual([mid]);
    expect(expectSuccess(await get({ anchor: "-5", num_after: 1 })).anchor).toBe(0);
  });

  it("anchors at the first unread message", async () => {
    const { other } = s.realm;
    const unread = await s.db.selectFrom("user_messages").select("message_id").where("user_id", "=", other.id).where((eb) => eb("flags", "=", 0)).orderBy("message_id").execute();
    const body = expectSuccess(await get({ anchor: "first_unread", num_before: 0, num_after: 0 }, other));
    expect(body.anchor).toBe(unread[0].message_id);
    expect(idsOf(body)).toEqual([unread[0].message_id]);
    const next = expectSuccess(await get({ anchor: "first_unread", num_before: 0, num_after: 1 }, other));
    expect(idsOf(next)).toHaveLength(2);
    expect(idsOf(next)[0]).toBe(unread[0].message_id);
    expect(body.found_anchor).toBe(true);
    const legacy = expectSuccess(await get({ use_first_unread_anchor: true, num_after: 0 }, other));
    expect(legacy.anchor).toBe(unread[0].message_id);
    // Nobody unread: anchors after the newest.
    const none = expectSuccess(await get({ anchor: "first_unread", num_before: 1, narrow: [{ operator: "is", operand: "unread" }, { operator: "sender", operand: s.realm.member.id }] }, s.realm.member));
    expect(none.anchor).toBe(10000000000000000);
  });

  it("narrows by channel (name or id), topic, sender and search", async () => {
    const { member, other } = s.realm;
    const q = (narrow: unknown, user = member) => get({ anchor: "newest", num_before: 50, narrow }, user).then(expectSuccess).then(idsOf);
    const inDesign = await q([{ operator: "channel", operand: "design" }]);
    expect(inDesign).toEqual(expect.arrayContaining([ids.d1, ids.d2, ids.d3, ids.empty]));
    expect(inDesign).not.toContain(ids.dm);
    expect(await q([{ operator: "stream", operand: design.id }])).toEqual(inDesign);
    expect(await q([["stream", "DESIGN"]])).toEqual(inDesign);
    expect(await q([{ operator: "channel", operand: "design" }, { operator: "topic", operand: "ALPHA" }])).toEqual([ids.d1, ids.d3]);
    expect(await q([{ operator: "channel", operand: "design" }, { operator: "topic", operand: "general chat" }])).toEqual([ids.empty]);
    expect(await q([{ operator: "sender", operand: other.delivery_email }])).toEqual(
      expect.arrayContaining([ids.d2, ids.dm]),
    );
    expect(await q([{ operator: "sender", operand: other.id }, { operator: "channel", operand: "design", negated: true }])).toEqual([ids.dm]);
    expect(await q([{ operator: "search", operand: "SECOND" }])).toEqual([ids.d2]);
    expect(await q([{ operator: "search", operand: "100%_" }])).toEqual([]);
    expect(await q([{ operator: "id", operand: ids.d2 }])).toEqual([ids.d2]);
  });

  it("narrows by conversation and flags", async () => {
    const { member, other, owner } = s.realm;
    const q = (narrow: unknown, user = member) => get({ anchor: "newest", num_before: 50, narrow }, user).then(expectSuccess).then(idsOf);
    expect(await q([{ operator: "dm", operand: [other.id] }])).toEqual([ids.dm]);
    expect(await q([{ operator: "pm-with", operand: other.delivery_email }])).toEqual([ids.dm]);
    expect(await q([{ operator: "dm", operand: [member.id] }], other)).toEqual([ids.dm]);
    expect(await q([{ operator: "dm", operand: [other.id, owner.id] }])).toEqual([ids.grp]);
    expect(await q([{ operator: "dm", operand: [owner.id] }])).toEqual([]);
    expect(await q([{ operator: "is", operand: "dm" }])).toEqual([ids.dm, ids.grp]);
    expect(await q([{ operator: "is", operand: "mentioned" }])).toEqual([ids.d3]);
    expect(await q([{ operator: "is", operand: "unread" }])).toEqual(expect.arrayContaining([ids.d2, ids.dm, ids.d3]));
    await s.db.updateTable("user_messages").set({ flags: 3 }).where("user_id", "=", member.id).where("message_id", "=", ids.d2).execute();
    expect(await q([{ operator: "is", operand: "starred" }])).toEqual([ids.d2]);
  });

  it("includes channel history the user may read, and nothing from private channels", async () => {
    const { moderator, member } = s.realm;
    const body = expectSuccess(await get({ anchor: "newest", num_before: 50, narrow: [{ operator: "channel", operand: "design" }] }, moderator));
    expect(idsOf(body)).toEqual(expect.arrayContaining([ids.d1, ids.d2]));
    expect(body.messages.find((m: { id: number }) => m.id === ids.d1).flags).toEqual(["read", "historical"]);
    // Without a channel narrow only received messages are searched.
    const all = expectSuccess(await get({ anchor: "newest", num_before: 50 }, moderator));
    expect(idsOf(all)).not.toContain(ids.d1);
    const vault = expectSuccess(await get({ anchor: "newest", num_before: 50, narrow: [{ operator: "channel", operand: "vault" }] }, member));
    expect(idsOf(vault)).toEqual([]);
    const guest = expectSuccess(await get({ anchor: "newest", num_before: 50, narrow: [{ operator: "channel", operand: "design" }] }, s.realm.guest));
    expect(idsOf(guest)).toEqual([]);
  });

  it("applies apply_markdown, client_hashavatar and allow_empty_topic_name", async () => {
    const narrow = [{ operator: "id", operand: ids.empty }];
    const [html] = expectSuccess(await get({ anchor: "newest", num_before: 1, narrow })).messages;
    expect(html).toMatchObject({ content: "<p>no topic here</p>", subject: "general chat", avatar_url: null });
    const [raw] = expectSuccess(await get({ anchor: "newest", num_before: 1, narrow, apply_markdown: false, client_hashavatar: false, allow_empty_topic_name: true })).messages;
    expect(raw).toMatchObject({ content: "no topic here", content_type: "text/x-markdown", subject: "", avatar_url: avatarUrl(s.realm.member) });
  });

  it("reports parameter and narrow errors", async () => {
    expectError(await get({ num_before: 1 }), "Missing 'anchor' argument.");
    expectError(await get({ anchor: "middle" }), "Invalid anchor");
    expectError(await get({ anchor: "newest", num_before: -1 }), "num_before is too small");
    expectError(await get({ anchor: "newest", num_before: 3000, num_after: 2001 }), "Too many messages requested (maximum 5000).");
    expectError(await get({ anchor: "newest", narrow: "{" }), "Bad value for 'narrow': {");
    expectError(await get({ anchor: "newest", narrow: [["stream"]] }), `Bad value for 'narrow': [["stream"]]`);
    const bad = (narrow: unknown, msg: string) => get({ anchor: "newest", narrow }).then((res) => expectError(res, msg, { code: "BAD_NARROW" }));
    await bad([{ operator: "color", operand: "red" }], "Invalid narrow operator: unknown operator color");
    await bad([{ operator: "channel", operand: "nowhere" }], "Invalid narrow operator: unknown channel nowhere");
    await bad([{ operator: "sender", operand: "ghost@example.com" }], "Invalid narrow operator: unknown user ghost@example.com");
    await bad([{ operator: "dm", operand: [99999] }], "Invalid narrow operator: unknown user in [99999]");
    await bad([{ operator: "is", operand: "happy" }], "Invalid narrow operator: unknown 'is' operand happy");
    await bad([{ operator: "has", operand: "cats" }], "Invalid narrow operator: unknown 'has' operand cats");
    await bad([{ operator: "channel", operand: "elsewhere" }], "Invalid narrow operator: unknown channel elsewhere");
  });

  it("loads related rows with a constant number of queries", async () => {
    const { member, other } = s.realm;
    for (let i = 0; i < 10; i++) await sendChannelMessage(s, i % 2 ? member : other, "design", `bulk ${i}`, `message ${i}`);
    let count = 0;
    const original = s.db.getExecutor().executeQuery.bind(s.db.getExecutor());
    const executor = s.db.getExecutor() as { executeQuery: typeof original };
    const measure = async (n: number) => {
      count = 0;
      executor.executeQuery = ((...args: Parameters<typeof original>) => {
        count += 1;
        return original(...args);
      }) as typeof original;
      try {
        expectSuccess(await get({ anchor: "newest", num_before: n }));
      } finally {
        executor.executeQuery = original;
      }
      return count;
    };
    expect(await measure(12)).toBe(await measure(2));
  });
});

describe("spectators (no credentials)", () => {
  let open: number;
  let closed: number;
  beforeAll(async () => {
    await makeChannel(s, "town-square", { subscribers: [s.realm.owner], is_web_public: true });
    open = await sendChannelMessage(s, s.realm.owner, "town-square", "news", "public news");
    closed = ids.d1;
  });
  const setSpectators = (on: boolean) => s.db.updateTable("realms").set({ enable_spectator_access: on ? 1 : 0 }).where("id", "=", s.realm.realm.id).execute();
  const notLoggedIn = (res: Awaited<ReturnType<typeof s.api.get>>) =>
    expectError(res, "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });

  it("read web-public messages only when the organization allows it", async () => {
    notLoggedIn(await s.api.get(null, `/messages/${open}`));
    await setSpectators(true);
    try {
      const m = expectSuccess(await s.api.get(null, `/messages/${open}`)).message;
      expect(m).toMatchObject({ id: open, display_recipient: "town-square", flags: ["read"] });
      notLoggedIn(await s.api.get(null, `/messages/${closed}`));
      notLoggedIn(await s.api.get(null, `/messages/${ids.dm}`));
      notLoggedIn(await s.api.get(null, "/messages/999999"));
      const list = expectSuccess(await s.api.get(null, "/messages", { anchor: "newest", num_before: 10, narrow: [{ operator: "channel", operand: "town-square" }] }));
      expect(list.messages.map((x: { id: number }) => x.id)).toEqual([open]);
      expect(list.messages[0].flags).toEqual(["read"]);
      const all = expectSuccess(await s.api.get(null, "/messages", { anchor: "newest", num_before: 50 }));
      expect(all.messages.map((x: { id: number }) => x.id)).toEqual([open]);
      notLoggedIn(await s.api.get(null, "/messages", { anchor: "newest", narrow: [{ operator: "is", operand: "starred" }] }));
      expectError(await s.api.get(null, "/messages", { anchor: "newest", narrow: [{ operator: "channel", operand: "design" }] }), "Invalid narrow operator: unknown web-public channel design", { code: "BAD_NARROW" });
    } finally {
      await setSpectators(false);
    }
    notLoggedIn(await s.api.get(null, "/messages", { anchor: "newest" }));
  });
});
