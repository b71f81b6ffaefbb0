/**
 * The web client's state (web/src/store.ts): a /register answer loaded, then kept current by
 * events, as the app's components read it. Plain data in, plain data out: no browser needed.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { Store } from "../../web/src/store.js";
import { narrowKey, parseNarrowKey, type Narrow } from "../../web/src/narrow.js";
import type { Message } from "../../web/src/types.js";

const ME = 10;
const BO = 11;
const CY = 12;
let s: Store;

function channelMessage(id: number, topic: string, extra: Partial<Message> = {}): Message {
  return { id, type: "stream", sender_id: BO, sender_full_name: "Bo", content: `<p>m${id}</p>`, timestamp: 1000 + id, stream_id: 1, subject: topic, display_recipient: "general", reactions: [], ...extra };
}

beforeEach(() => {
  s = new Store();
  s.load({
    user_id: ME,
    full_name: "Me",
    email: "me@x.test",
    realm_name: "Acme",
    realm_users: [
      { user_id: ME, full_name: "Me", email: "me@x.test" },
      { user_id: BO, full_name: "Bo", email: "bo@x.test" },
      { user_id: CY, full_name: "Cy", email: "cy@x.test" },
    ],
    subscriptions: [
      { stream_id: 2, name: "zeta" },
      { stream_id: 1, name: "general" },
    ],
    unread_msgs: {
      streams: [{ stream_id: 1, topic: "a", unread_message_ids: [1, 2] }],
      pms: [{ other_user_id: BO, unread_message_ids: [3] }],
      huddles: [{ user_ids_string: `${ME},${BO},${CY}`, unread_message_ids: [4] }],
    },
    user_topics: [{ stream_id: 1, topic_name: "Muted", visibility_policy: 1, last_updated: 1 }],
    drafts: [{ id: 7, type: "stream", to: [1], topic: "a", content: "hi", timestamp: 5 }],
    recent_private_conversations: [{ user_ids: [BO], max_message_id: 3 }],
    presences: { [BO]: { active_timestamp: 100, idle_timestamp: 100 } },
    server_timestamp: 150,
    user_status: { [BO]: { status_text: "Away" } },
    server_emoji_data_url: "http://x.test/static/generated/emoji/emoji_api.abc.json",
  });
});

describe("load", () => {
  it("reads /register's state", () => {
    expect(s.subscriptions.map((x) => x.name)).toEqual(["general", "zeta"]);
    expect(s.channelUnread(1)).toBe(2);
    expect(s.topicUnread(1, "A")).toBe(2);
    expect(s.dmUnread(String(BO))).toBe(1);
    expect(s.dmUnread(`${BO},${CY}`)).toBe(1);
    expect(s.topicPolicy(1, "muted")).toBe(1);
    expect(s.drafts.get(7)?.content).toBe("hi");
    expect(s.dmConversations.get(String(BO))).toBe(3);
    expect(s.statuses.get(BO)?.status_text).toBe("Away");
    expect(s.emojiDataUrl).toContain("emoji_api");
  });

  it("gives presence by upstream's 140 s threshold against the server's clock", () => {
    // The server's clock was 150 when this store loaded: Bo was active 50 s before that.
    expect(s.presenceOf(BO)).toBe("active");
    s.clockSkew += 100;
    expect(s.presenceOf(BO)).toBe("offline");
    expect(s.presenceOf(CY)).toBe("offline");
  });
});

describe("events", () => {
  it("adds a new message to the loaded narrows it belongs to, and counts it unread", () => {
    s.addToList({ kind: "channel", streamId: 1 }, [channelMessage(1, "a")], true);
    s.addToList({ kind: "topic", streamId: 1, topic: "b" }, [], true);
    s.addToList({ kind: "dm", userIds: [BO] }, [], true);
    s.topics.set(1, []);
    s.apply({ type: "message", message: channelMessage(20, "B"), flags: [] });
    expect(s.lists.get("channel/1")?.ids).toEqual([1, 20]);
    expect(s.lists.get("topic/1/b")?.ids).toEqual([20]);
    expect(s.lists.get(`dm/${BO}`)?.ids).toEqual([]);
    expect(s.topicUnread(1, "b")).toBe(1);
    expect(s.topics.get(1)).toEqual([{ name: "B", max_id: 20 }]);

    const dm: Message = { ...channelMessage(21, ""), type: "private", stream_id: undefined, display_recipient: [{ id: ME, full_name: "Me", email: "" }, { id: BO, full_name: "Bo", email: "" }] };
    s.apply({ type: "message", message: dm, flags: ["read"] });
    expect(s.lists.get(`dm/${BO}`)?.ids).toEqual([21]);
    expect(s.dmConversations.get(String(BO))).toBe(21);
    expect(s.unread.has(21)).toBe(false);
  });

  it("leaves muted topics out of a channel's count, but not out of the topic's", () => {
    s.apply({ type: "message", message: channelMessage(30, "muted"), flags: [] });
    expect(s.channelUnread(1)).toBe(2);
    expect(s.topicUnread(1, "Muted")).toBe(1);
    s.apply({ type: "user_topic", stream_id: 1, topic_name: "Muted", visibility_policy: 0, last_updated: 2 });
    expect(s.channelUnread(1)).toBe(3);
  });

  it("applies edits, reactions and deletions to loaded messages", () => {
    s.addToList({ kind: "channel", streamId: 1 }, [channelMessage(1, "a"), channelMessage(2, "a")], true);
    s.apply({ type: "update_message", message_id: 1, message_ids: [1], rendered_content: "<p>new</p>", edit_timestamp: 9 });
    expect(s.messages.get(1)?.content).toBe("<p>new</p>");
    expect(s.messages.get(1)?.last_edit_timestamp).toBe(9);

    const reaction = { type: "reaction", message_id: 1, emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji", user_id: BO };
    s.apply({ ...reaction, op: "add" });
    s.apply({ ...reaction, op: "add" });
    expect(s.messages.get(1)?.reactions).toHaveLength(1);
    s.apply({ ...reaction, op: "remove" });
    expect(s.messages.get(1)?.reactions).toEqual([]);

    s.apply({ type: "delete_message", message_ids: [1], message_type: "stream" });
    expect(s.lists.get("channel/1")?.ids).toEqual([2]);
    expect(s.messages.has(1)).toBe(false);
    expect(s.unread.has(1)).toBe(false);
  });

  it("follows read flags both ways", () => {
    s.apply({ type: "update_message_flags", op: "add", flag: "read", messages: [1, 3], all: false });
    expect([...s.unread.keys()].sort()).toEqual([2, 4]);
    s.apply({ type: "update_message_flags", op: "remove", flag: "read", messages: [3], all: false, message_details: { 3: { type: "private", user_ids: [BO] } } });
    expect(s.dmUnread(String(BO))).toBe(1);
    s.apply({ type: "update_message_flags", op: "add", flag: "read", messages: [], all: true });
    expect(s.unread.size).toBe(0);
  });

  it("keeps typing notices per narrow until stop or the sender's message", () => {
    const start = { type: "typing", op: "start", sender: { user_id: BO, email: "" }, message_type: "stream", stream_id: 1, topic: "a" };
    s.apply(start);
    s.apply(start);
    expect(s.typing.map((t) => [t.narrow, t.userId])).toEqual([["topic/1/a", BO]]);
    s.apply({ ...start, op: "stop" });
    expect(s.typing).toEqual([]);
    s.apply({ type: "typing", op: "start", sender: { user_id: BO, email: "" }, message_type: "direct", recipients: [{ user_id: ME }, { user_id: BO }] });
    expect(s.typing[0]?.narrow).toBe(`dm/${BO}`);
    s.apply({ type: "message", message: { ...channelMessage(40, "a") }, flags: [] });
    expect(s.typing).toEqual([]);
  });

  it("keeps drafts, scheduled messages, reminders, statuses and presence", () => {
    s.apply({ type: "drafts", op: "add", drafts: [{ id: 8, type: "private", to: [BO], topic: "", content: "x", timestamp: 6 }] });
    s.apply({ type: "drafts", op: "update", draft: { id: 7, type: "stream", to: [1], topic: "a", content: "hi there", timestamp: 7 } });
    s.apply({ type: "drafts", op: "remove", draft_id: 8 });
    expect([...s.drafts.values()].map((d) => d.content)).toEqual(["hi there"]);

    const sm = { scheduled_message_id: 1, type: "stream", to: 1, topic: "a", content: "later", rendered_content: "", scheduled_delivery_timestamp: 500, failed: false };
    s.apply({ type: "scheduled_messages", op: "add", scheduled_messages: [{ ...sm, scheduled_message_id: 2, scheduled_delivery_timestamp: 900 }, sm] });
    expect(s.scheduled.map((m) => m.scheduled_message_id)).toEqual([1, 2]);
    s.apply({ type: "scheduled_messages", op: "remove", scheduled_message_id: 1 });
    expect(s.scheduled.map((m) => m.scheduled_message_id)).toEqual([2]);

    s.apply({ type: "reminders", op: "add", reminders: [{ reminder_id: 5, reminder_target_message_id: 1, scheduled_delivery_timestamp: 700 }] });
    expect(s.reminders).toHaveLength(1);
    s.apply({ type: "reminders", op: "remove", reminder_id: 5 });
    expect(s.reminders).toEqual([]);

    s.apply({ type: "user_status", user_id: BO, emoji_name: "car" });
    expect(s.statuses.get(BO)).toEqual({ status_text: "Away", emoji_name: "car" });

    s.apply({ type: "presence", user_id: CY, email: "", server_timestamp: 150, presence: { website: { client: "website", status: "idle", timestamp: 140, pushable: false } } });
    expect(s.presenceOf(CY)).toBe("idle");
  });
});

describe("narrow keys", () => {
  it("round-trips the app's own keys, topics with any characters included", () => {
    const narrows: Narrow[] = [
      { kind: "channel", streamId: 3 },
      { kind: "topic", streamId: 3, topic: "100% / done? #1 ünï" },
      { kind: "dm", userIds: [4, 9] },
      { kind: "dm", userIds: [] },
    ];
    for (const n of narrows) {
      expect(parseNarrowKey(narrowKey(n))).toEqual(n);
    }
  });

  it("reads upstream's narrow links that rendered messages carry", () => {
    expect(parseNarrowKey("narrow/channel/12-general")).toEqual({ kind: "channel", streamId: 12 });
    expect(parseNarrowKey("narrow/stream/12-general/topic/release.20plan.2E")).toEqual({ kind: "topic", streamId: 12, topic: "release plan." });
    expect(parseNarrowKey("narrow/dm/5,7-group")).toEqual({ kind: "dm", userIds: [5, 7] });
    expect(parseNarrowKey("narrow/search/x")).toBeUndefined();
    expect(parseNarrowKey("compose-box")).toBeUndefined();
    expect(parseNarrowKey("topic/1/%E0%A4%A")).toBeUndefined();
  });
});

describe("moved messages", () => {
  it("drop the loaded lists and topics (the app fetches the open narrow again)", () => {
    s.addToList({ kind: "topic", streamId: 1, topic: "a" }, [channelMessage(1, "a")], true);
    s.topics.set(1, [{ name: "a", max_id: 1 }]);
    s.apply({ type: "update_message", message_id: 1, message_ids: [1, 2], subject: "b", orig_subject: "a", stream_id: 1 });
    expect(s.messages.get(1)?.subject).toBe("b");
    expect(s.lists.size).toBe(0);
    expect(s.topics.size).toBe(0);
    // The unread messages moved with it, loaded (1) or not (2).
    expect(s.topicUnread(1, "b")).toBe(2);
    expect(s.topicUnread(1, "a")).toBe(0);
  });
});
