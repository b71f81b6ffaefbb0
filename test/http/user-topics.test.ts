import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage } from "../support/messages.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import type { User } from "../../src/db/schema.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let lounge: { id: number };
let vault: { id: number };

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, member, other } = s.realm;
  lounge = await makeChannel(s, "lounge", { subscribers: [owner, member, other] });
  vault = await makeChannel(s, "vault", { subscribers: [owner, member], invite_only: true });
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const setPolicy = (user: User, params: Record<string, unknown>) => s.api.post(user, "/user_topics", params);
const rows = (user: User) =>
  s.db.selectFrom("user_topics").select(["channel_id", "topic_name", "topic_key", "visibility_policy"]).where("user_id", "=", user.id).orderBy("id").execute();

async function expectPolicyError(user: User, params: Record<string, unknown>, msg: string, code = "BAD_REQUEST") {
  const before = await s.db.selectFrom("user_topics").selectAll().orderBy("id").execute();
  expectError(await setPolicy(user, params), msg, { code });
  expect(await s.db.selectFrom("user_topics").selectAll().orderBy("id").execute()).toEqual(before);
  expect(published).toEqual([]);
}

describe("POST /user_topics", () => {
  it("mutes, follows, unmutes and clears a topic, with muted_topics and user_topic events to the user only", async () => {
    const { member } = s.realm;
    expect(expectSuccess(await setPolicy(member, { stream_id: lounge.id, topic: "Plans", visibility_policy: 1 }))).toEqual({ result: "success", msg: "" });
    expect(await rows(member)).toEqual([{ channel_id: lounge.id, topic_name: "Plans", topic_key: "plans", visibility_policy: 1 }]);
    expect(published.map((p) => p.userIds)).toEqual([[member.id], [member.id]]);
    const [legacy, modern] = published.map((p) => p.event);
    const row = await s.db.selectFrom("user_topics").select("last_updated").where("user_id", "=", member.id).executeTakeFirstOrThrow();
    expect(legacy).toEqual({ type: "muted_topics", muted_topics: [["lounge", "Plans", Number(row.last_updated)]] });
    expect(modern).toEqual({ type: "user_topic", stream_id: lounge.id, topic_name: "Plans", last_updated: Number(row.last_updated), visibility_policy: 1 });

    published = [];
    // Topics compare case-insensitively: the same row changes.
    expectSuccess(await setPolicy(member, { stream_id: lounge.id, topic: "PLANS", visibility_policy: 3 }));
    expect(await rows(member)).toEqual([{ channel_id: lounge.id, topic_name: "PLANS", topic_key: "plans", visibility_policy: 3 }]);
    expect(published.map((p) => p.event)).toEqual([
      { type: "muted_topics", muted_topics: [] },
      expect.objectContaining({ type: "user_topic", topic_name: "PLANS", visibility_policy: 3 }),
    ]);
    expectSuccess(await setPolicy(member, { stream_id: lounge.id, topic: "plans", visibility_policy: 2 }));
    expect((await rows(member))[0].visibility_policy).toBe(2);
    published = [];
    expectSuccess(await setPolicy(member, { stream_id: lounge.id, topic: "Plans", visibility_policy: 0 }));
    expect(await rows(member)).toEqual([]);
    expect(published.map((p) => p.event)).toEqual([
      { type: "muted_topics", muted_topics: [] },
      expect.objectContaining({ type: "user_topic", stream_id: lounge.id, topic_name: "Plans", visibility_policy: 0 }),
    ]);
  });

  it("setting the current policy again, or clearing none, succeeds and sends nothing", async () => {
    const { other } = s.realm;
    expectSuccess(await setPolicy(other, { stream_id: lounge.id, topic: "quiet", visibility_policy: 0 }));
    expect(published).toEqual([]);
    expectSuccess(await setPolicy(other, { stream_id: lounge.id, topic: "quiet", visibility_policy: 1 }));
    published = [];
    expectSuccess(await setPolicy(other, { stream_id: lounge.id, topic: "Quiet", visibility_policy: 1 }));
    expect(published).toEqual([]);
    expect(await rows(other)).toEqual([{ channel_id: lounge.id, topic_name: "quiet", topic_key: "quiet", visibility_policy: 1 }]);
  });

  it("works whether or not the topic has messages; the empty-topic display name is the empty topic", async () => {
    const { owner } = s.realm;
    await sendChannelMessage(s, owner, "lounge", "busy", "hello");
    expectSuccess(await setPolicy(owner, { stream_id: lounge.id, topic: "busy", visibility_policy: 3 }));
    expectSuccess(await setPolicy(owner, { stream_id: lounge.id, topic: "never used", visibility_policy: 3 }));
    expectSuccess(await setPolicy(owner, { stream_id: lounge.id, topic: s.realm.realm.empty_topic_display_name, visibility_policy: 1 }));
    expect((await rows(owner)).map((r) => [r.topic_name, r.visibility_policy])).toEqual([
      ["busy", 3],
      ["never used", 3],
      ["", 1],
    ]);
  });

  it("validates parameters, topic length and channel access", async () => {
    const { other } = s.realm;
    await expectPolicyError(other, { topic: "t", visibility_policy: 1 }, "Missing 'stream_id' argument", "REQUEST_VARIABLE_MISSING");
    await expectPolicyError(other, { stream_id: lounge.id, visibility_policy: 1 }, "Missing 'topic' argument", "REQUEST_VARIABLE_MISSING");
    await expectPolicyError(other, { stream_id: lounge.id, topic: "t" }, "Missing 'visibility_policy' argument", "REQUEST_VARIABLE_MISSING");
    await expectPolicyError(other, { stream_id: "\"x\"", topic: "t", visibility_policy: 1 }, "stream_id is not an integer");
    await expectPolicyError(other, { stream_id: lounge.id, topic: "t", visibility_policy: 4 }, "Invalid visibility_policy");
    await expectPolicyError(other, { stream_id: lounge.id, topic: "x".repeat(61), visibility_policy: 1 }, "topic is too long (limit: 60 characters)");
    await expectPolicyError(other, { stream_id: 99999, topic: "t", visibility_policy: 1 }, "Invalid channel ID");
    await expectPolicyError(other, { stream_id: 99999, topic: "t", visibility_policy: 0 }, "Invalid channel ID");
    await expectPolicyError(other, { stream_id: vault.id, topic: "t", visibility_policy: 1 }, "Invalid channel ID");
    await expectPolicyError(s.other.owner, { stream_id: lounge.id, topic: "t", visibility_policy: 1 }, "Invalid channel ID");
    await expectPolicyError(s.other.owner, { stream_id: lounge.id, topic: "t", visibility_policy: 0 }, "Invalid channel ID");
  });

  it("clearing a policy needs only the channel to exist (access may be gone)", async () => {
    const { member } = s.realm;
    await s.db.insertInto("user_topics").values({ realm_id: s.realm.realm.id, user_id: member.id, channel_id: vault.id, topic_name: "old", topic_key: "old", visibility_policy: 1, last_updated: 1 }).execute();
    await s.db.deleteFrom("subscriptions").where("user_id", "=", member.id).where("recipient_id", "in", s.db.selectFrom("recipients").select("id").where("type", "=", 2).where("type_id", "=", vault.id)).execute();
    expectSuccess(await setPolicy(member, { stream_id: vault.id, topic: "old", visibility_policy: 0 }));
    expect((await rows(member)).filter((r) => r.channel_id === vault.id)).toEqual([]);
  });
});

describe("stored policies in unread counts", () => {
  it("muted topics leave unread_msgs.count; unmuted and followed topics of a muted channel count", async () => {
    const { admin, owner } = s.realm;
    await makeChannel(s, "counts", { subscribers: [owner, admin] });
    await sendChannelMessage(s, owner, "counts", "loud", "one");
    await sendChannelMessage(s, owner, "counts", "hushed", "two");
    const count = async () => expectSuccess(await s.api.post(admin, "/register", { fetch_event_types: ["message", "update_message_flags"] })).unread_msgs.count;
    expect(await count()).toBe(2);
    const channelId = (await s.db.selectFrom("channels").select("id").where("name", "=", "counts").executeTakeFirstOrThrow()).id;
    expectSuccess(await setPolicy(admin, { stream_id: channelId, topic: "hushed", visibility_policy: 1 }));
    expect(await count()).toBe(1);
    await s.db.updateTable("subscriptions").set({ is_muted: 1 }).where("user_id", "=", admin.id).execute();
    expect(await count()).toBe(0);
    expectSuccess(await setPolicy(admin, { stream_id: channelId, topic: "loud", visibility_policy: 3 }));
    expect(await count()).toBe(1);
  });
});
