import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/messages.js";
import { doMarkAllAsRead } from "../../src/actions/mark-read.js";
import type { User } from "../../src/db/schema.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let design: { id: number };
let secret: { id: number };

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, member, other } = s.realm;
  design = await makeChannel(s, "design", { subscribers: [owner, member, other] });
  secret = await makeChannel(s, "secret", { subscribers: [owner], invite_only: true });
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

/** The user's unread message ids, from the database. */
async function unreadIds(user: User): Promise<number[]> {
  const rows = await s.db.selectFrom("user_messages").select(["message_id", "flags"]).where("user_id", "=", user.id).orderBy("message_id").execute();
  return rows.filter((r) => (r.flags & 1) === 0).map((r) => r.message_id);
}

const readEvent = (messages: number[], all = false) => ({ type: "update_message_flags", op: "add", operation: "add", flag: "read", messages, all });

describe("POST /mark_topic_as_read", () => {
  it("marks the topic's unread messages read (topic matched without case), one event listing them", async () => {
    const { member, other } = s.realm;
    const a = await sendChannelMessage(s, other, "design", "Lunch", "one");
    const b = await sendChannelMessage(s, other, "design", "lunch", "two");
    const c = await sendChannelMessage(s, other, "design", "Other", "three");
    published = [];
    expect(expectSuccess(await s.api.post(member, "/mark_topic_as_read", { stream_id: design.id, topic_name: "LUNCH" }))).toEqual({ result: "success", msg: "" });
    expect(await unreadIds(member)).toEqual(expect.arrayContaining([c]));
    expect(await unreadIds(member)).not.toContain(a);
    expect(await unreadIds(member)).not.toContain(b);
    expect(published.map((p) => [p.event, p.userIds])).toEqual([[readEvent([a, b]), [member.id]]]);
    // Nothing left unread there: success, no event.
    published = [];
    expectSuccess(await s.api.post(member, "/mark_topic_as_read", { stream_id: design.id, topic_name: "Lunch" }));
    expect(published).toEqual([]);
  });

  it("names the empty topic by its display name", async () => {
    const { member, other } = s.realm;
    const id = await sendChannelMessage(s, other, "design", "", "general");
    expectSuccess(await s.api.post(member, "/mark_topic_as_read", { stream_id: design.id, topic_name: s.realm.realm.empty_topic_display_name }));
    expect(await unreadIds(member)).not.toContain(id);
  });

  it("refuses a topic the user has no message in, and inaccessible channels, changing nothing", async () => {
    const { member } = s.realm;
    const before = await unreadIds(member);
    expectError(await s.api.post(member, "/mark_topic_as_read", { stream_id: design.id, topic_name: "never" }), "No such topic 'never'");
    expectError(await s.api.post(member, "/mark_topic_as_read", { stream_id: secret.id, topic_name: "t" }), "Invalid channel ID");
    expectError(await s.api.post(member, "/mark_topic_as_read", { stream_id: 999999, topic_name: "t" }), "Invalid channel ID");
    expectError(await s.api.post(member, "/mark_topic_as_read", { stream_id: design.id }), "Missing 'topic_name' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(member, "/mark_topic_as_read", { topic_name: "t" }), "Missing 'stream_id' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(member, "/mark_topic_as_read", { stream_id: "x", topic_name: "t" }), "stream_id is not valid JSON");
    expect(await unreadIds(member)).toEqual(before);
    expect(published).toEqual([]);
  });
});

describe("POST /mark_stream_as_read", () => {
  it("marks only that channel's messages read", async () => {
    const { member, other } = s.realm;
    const inDesign = [await sendChannelMessage(s, other, "design", "x", "1"), await sendChannelMessage(s, other, "design", "y", "2")];
    await makeChannel(s, "elsewhere", { subscribers: [member, other] });
    const elsewhere = await sendChannelMessage(s, other, "elsewhere", "x", "3");
    const dm = await sendDirectMessage(s, other, [member], "4");
    published = [];
    expect(expectSuccess(await s.api.post(member, "/mark_stream_as_read", { stream_id: design.id }))).toEqual({ result: "success", msg: "" });
    const unread = await unreadIds(member);
    for (const id of inDesign) expect(unread).not.toContain(id);
    expect(unread).toEqual(expect.arrayContaining([elsewhere, dm]));
    expect(published).toHaveLength(1);
    expect(published[0].event).toEqual(readEvent(expect.arrayContaining(inDesign) as unknown as number[]));
    expect(published[0].userIds).toEqual([member.id]);
  });

  it("refuses a channel the user cannot access, changing nothing", async () => {
    const { member, owner } = s.realm;
    await sendChannelMessage(s, owner, "secret", "t", "hidden");
    published = [];
    const before = await unreadIds(member);
    expectError(await s.api.post(member, "/mark_stream_as_read", { stream_id: secret.id }), "Invalid channel ID");
    expectError(await s.api.post(member, "/mark_stream_as_read", {}), "Missing 'stream_id' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expect(await unreadIds(member)).toEqual(before);
    expect(published).toEqual([]);
  });
});

describe("POST /mark_all_as_read", () => {
  it("marks everything read, answers complete, one event with all", async () => {
    const { member, other, owner } = s.realm;
    await sendChannelMessage(s, other, "design", "z", "5");
    await sendDirectMessage(s, other, [member], "6");
    const otherUnread = await unreadIds(owner);
    published = [];
    expect(expectSuccess(await s.api.post(member, "/mark_all_as_read"))).toEqual({ result: "success", msg: "", complete: true });
    expect(await unreadIds(member)).toEqual([]);
    expect(await unreadIds(owner)).toEqual(otherUnread);
    expect(published.map((p) => [p.event, p.userIds])).toEqual([[readEvent([], true), [member.id]]]);
  });

  it("works in batches and reports an unfinished run", async () => {
    const { member, other } = s.realm;
    for (let i = 0; i < 5; i++) await sendChannelMessage(s, other, "design", "batch", `m${i}`);
    published = [];
    expect(await doMarkAllAsRead(s.ctx, s.realm.realm, member, { batchSize: 2 })).toBe(true);
    expect(await unreadIds(member)).toEqual([]);
    expect(published.map((p) => p.event)).toEqual([readEvent([], true)]);
    await sendChannelMessage(s, other, "design", "batch", "late");
    published = [];
    expect(await doMarkAllAsRead(s.ctx, s.realm.realm, member, { timeoutMs: 0 })).toBe(false);
    expect(published).toEqual([]);
  });
});
