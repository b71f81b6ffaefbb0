import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage } from "../support/messages.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ deleteTopicBatchSize: 2, deleteTopicBudgetMs: 0 });
});
afterAll(() => s.close());

describe("topic deletion events keep /register state current", () => {
  it("unread messages, first_message_id and topic preferences follow each batch", async () => {
    const { admin, member, other } = s.realm;
    const channel = await makeChannel(s, "purge", { subscribers: [admin, member, other] });
    for (let i = 0; i < 3; i++) await sendChannelMessage(s, other, "purge", "old", `unread ${i}`);
    await sendChannelMessage(s, other, "purge", "later", "stays");
    expectSuccess(await s.api.post(member, "/user_topics", { stream_id: channel.id, topic: "old", visibility_policy: 3 }));
    const del = () => s.api.post(admin, `/streams/${channel.id}/delete_topic`, { topic_name: "old" }).then(expectSuccess);
    const first = await verifyAction(s, member, del);
    expect(first.map((e) => e.type)).toEqual(["delete_message"]);
    const second = await verifyAction(s, member, del);
    expect(second.map((e) => e.type)).toEqual(["delete_message", "stream", "muted_topics", "user_topic"]);
  });
});
