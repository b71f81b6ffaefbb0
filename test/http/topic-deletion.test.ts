import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage } from "../support/messages.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { User } from "../../src/db/schema.js";

let s: TestServer;
let published: PublishedEvent[] = [];

beforeAll(async () => {
  // Small batches and no time budget: each request deletes one batch, so the partial path is testable.
  s = await startTestServer({ deleteTopicBatchSize: 2, deleteTopicBudgetMs: 0 });
  s.ctx.events.subscribe((p) => published.push(p));
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const deleteTopic = (user: User, channelId: number, topic_name?: string) =>
  s.api.post(user, `/streams/${channelId}/delete_topic`, topic_name === undefined ? {} : { topic_name });
const topicIds = async (channelId: number, topic: string) =>
  (await s.db.selectFrom("messages").select("id").where("channel_id", "=", channelId).where("topic", "=", topic).orderBy("id").execute()).map((r) => r.id);

describe("POST /streams/{stream_id}/delete_topic", () => {
  it("deletes newest first in batches, answering complete false until the topic is empty", async () => {
    const { owner, admin, member } = s.realm;
    const channel = await makeChannel(s, "cleanup", { subscribers: [owner, admin, member] });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await sendChannelMessage(s, member, "cleanup", "junk", `m${i}`));
    const keep = await sendChannelMessage(s, member, "cleanup", "keep", "stays");
    await s.api.post(member, `/messages/${ids[4]}/reactions`, { emoji_name: "tada" });
    await s.api.patch(member, `/messages/${ids[3]}`, { content: "edited" });
    published = [];

    expect(expectSuccess(await deleteTopic(admin, channel.id, "junk"))).toEqual({ result: "success", msg: "", complete: false });
    expect(await topicIds(channel.id, "junk")).toEqual(ids.slice(0, 3));
    const first = published.filter((p) => p.event.type === "delete_message");
    expect(first.map((p) => p.event)).toEqual([{ type: "delete_message", message_type: "stream", message_ids: [ids[3], ids[4]], stream_id: channel.id, topic: "junk" }]);
    expect([...first[0].userIds].sort()).toEqual([owner.id, admin.id, member.id].sort());
    expect(await s.db.selectFrom("reactions").selectAll().where("message_id", "in", ids).execute()).toEqual([]);
    expect(await s.db.selectFrom("message_edits").selectAll().where("message_id", "in", ids).execute()).toEqual([]);
    expect(await s.db.selectFrom("user_messages").selectAll().where("message_id", "in", ids.slice(3)).execute()).toEqual([]);

    expect(expectSuccess(await deleteTopic(admin, channel.id, "JUNK")).complete).toBe(false);
    published = [];
    // The last batch empties the topic: complete, and the channel's first message changed.
    expect(expectSuccess(await deleteTopic(admin, channel.id, "junk")).complete).toBe(true);
    expect(await topicIds(channel.id, "junk")).toEqual([]);
    expect(await topicIds(channel.id, "keep")).toEqual([keep]);
    const update = published.find((p) => p.event.type === "stream")!;
    expect(update.event).toEqual({ type: "stream", op: "update", property: "first_message_id", value: keep, stream_id: channel.id, name: "cleanup" });
    expect(update.userIds).toContain(member.id);
    const row = await s.db.selectFrom("channels").select("first_message_id").where("id", "=", channel.id).executeTakeFirstOrThrow();
    expect(row.first_message_id).toBe(keep);
    // An empty topic: nothing to do, complete.
    expect(expectSuccess(await deleteTopic(admin, channel.id, "junk")).complete).toBe(true);
  });

  it("clears topic preferences once the topic is gone", async () => {
    const { owner, member } = s.realm;
    const channel = await makeChannel(s, "prefs-gone", { subscribers: [owner, member] });
    await sendChannelMessage(s, member, "prefs-gone", "bye", "one");
    expectSuccess(await s.api.post(member, "/user_topics", { stream_id: channel.id, topic: "bye", visibility_policy: 3 }));
    published = [];
    expect(expectSuccess(await deleteTopic(owner, channel.id, "bye")).complete).toBe(true);
    expect(await s.db.selectFrom("user_topics").selectAll().where("channel_id", "=", channel.id).execute()).toEqual([]);
    const ut = published.filter((p) => p.event.type === "user_topic");
    expect(ut.map((p) => [p.userIds, p.event.visibility_policy, p.event.topic_name])).toEqual([[[member.id], 0, "bye"]]);
  });

  it("the empty topic by its display name; in a channel without shared history, only what the admin received", async () => {
    const { owner, admin, member } = s.realm;
    await makeChannel(s, "general-ish", { subscribers: [owner, member] });
    const channel = (await s.db.selectFrom("channels").selectAll().where("name", "=", "general-ish").executeTakeFirstOrThrow());
    await sendChannelMessage(s, member, "general-ish", "", "empty topic");
    expect(expectSuccess(await deleteTopic(owner, channel.id, s.realm.realm.empty_topic_display_name)).complete).toBe(true);
    expect(await topicIds(channel.id, "")).toEqual([]);

    const diary = await makeChannel(s, "diary", { subscribers: [owner, member], invite_only: true, history_public_to_subscribers: false });
    const before = await sendChannelMessage(s, member, "diary", "log", "before the admin joined");
    expectSuccess(await s.api.post(owner, "/users/me/subscriptions", { subscriptions: [{ name: "diary" }], principals: [admin.id] }));
    const after = await sendChannelMessage(s, member, "diary", "log", "after");
    expect(expectSuccess(await deleteTopic(admin, diary.id, "log")).complete).toBe(true);
    expect(await topicIds(diary.id, "log")).toEqual([before]);
    expect(after).toBeGreaterThan(before);
  });

  it("administrators only, then parameters, then channel access; failures delete nothing", async () => {
    const { member, moderator, admin, owner } = s.realm;
    const channel = await makeChannel(s, "guarded", { subscribers: [owner, member] });
    const secret = await makeChannel(s, "secret-room", { subscribers: [owner], invite_only: true });
    await sendChannelMessage(s, member, "guarded", "t", "stay");
    await sendChannelMessage(s, owner, "secret-room", "t", "stay");
    const count = async () => (await s.db.selectFrom("messages").select("id").execute()).length;
    const n = await count();
    published = [];
    expectError(await deleteTopic(member, channel.id, "t"), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await deleteTopic(moderator, channel.id, "t"), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await deleteTopic(member, channel.id), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await deleteTopic(admin, channel.id), "Missing 'topic_name' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await deleteTopic(admin, 99999, "t"), "Invalid channel ID");
    expectError(await deleteTopic(admin, secret.id, "t"), "Invalid channel ID");
    expectError(await deleteTopic(s.other.admin, channel.id, "t"), "Invalid channel ID");
    expect(await count()).toBe(n);
    expect(published).toEqual([]);
  });
});
