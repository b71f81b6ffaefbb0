import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/messages.js";

let s: TestServer;
let design: { id: number };
let archive: { id: number };

beforeAll(async () => {
  s = await startTestServer();
  const { owner, admin, member, other } = s.realm;
  design = await makeChannel(s, "design", { subscribers: [owner, admin, member, other] });
  archive = await makeChannel(s, "archive", { subscribers: [owner, admin, member, other] });
  await makeChannel(s, "secret", { subscribers: [owner], invite_only: true });
});
afterAll(() => s.close());

const history = (id: number, params: Record<string, unknown> = {}, user = s.realm.member) => s.api.get(user, `/messages/${id}/history`, params);

describe("GET /messages/{message_id}/history", () => {
  it("returns only the original snapshot for an unedited message", async () => {
    const id = await sendChannelMessage(s, s.realm.member, "design", "plans", "hello");
    const row = await s.db.selectFrom("messages").select("date_sent").where("id", "=", id).executeTakeFirstOrThrow();
    const body = expectSuccess(await history(id));
    expect(body.message_history).toEqual([{ content: "hello", rendered_content: "<p>hello</p>", timestamp: row.date_sent, topic: "plans", user_id: s.realm.member.id }]);
  });

  it("lists the state after each edit, oldest first, with only the changed fields", async () => {
    const { member, admin } = s.realm;
    const id = await sendChannelMessage(s, member, "design", "", "content before edit");
    expectSuccess(await s.api.patch(member, `/messages/${id}`, { content: "content after edit" }));
    expectSuccess(await s.api.patch(admin, `/messages/${id}`, { topic: "named" }));
    expectSuccess(await s.api.patch(admin, `/messages/${id}`, { stream_id: archive.id }));
    const edits = await s.db.selectFrom("message_edits").select("timestamp").where("message_id", "=", id).orderBy("id").execute();
    const sent = await s.db.selectFrom("messages").select("date_sent").where("id", "=", id).executeTakeFirstOrThrow();
    const body = expectSuccess(await history(id));
    expect(body.message_history).toEqual([
      { content: "content before edit", rendered_content: "<p>content before edit</p>", timestamp: sent.date_sent, topic: "general chat", user_id: member.id },
      {
        content: "content after edit",
        rendered_content: "<p>content after edit</p>",
        timestamp: edits[0].timestamp,
        topic: "general chat",
        user_id: member.id,
        prev_content: "content before edit",
        prev_rendered_content: "<p>content before edit</p>",
        content_html_diff: '<div><p>content <span class="highlight_text_inserted">after</span> <span class="highlight_text_deleted">before</span> edit</p></div>',
      },
      { content: "content after edit", rendered_content: "<p>content after edit</p>", timestamp: edits[1].timestamp, topic: "named", prev_topic: "general chat", user_id: admin.id },
      { content: "content after edit", rendered_content: "<p>content after edit</p>", timestamp: edits[2].timestamp, topic: "named", prev_stream: design.id, stream: archive.id, user_id: admin.id },
    ]);
    const raw = expectSuccess(await history(id, { allow_empty_topic_name: true })).message_history;
    expect(raw[0].topic).toBe("");
    expect(raw[2].prev_topic).toBe("");
  });

  it("works for direct messages (topics stay empty)", async () => {
    const { member, other } = s.realm;
    const id = await sendDirectMessage(s, member, [other], "v1");
    expectSuccess(await s.api.patch(member, `/messages/${id}`, { content: "v2" }));
    const body = expectSuccess(await history(id, {}, other));
    expect(body.message_history.map((h: { topic: string; content: string }) => [h.topic, h.content])).toEqual([["", "v1"], ["", "v2"]]);
  });

  it("rejects inaccessible messages and disabled history (checked first)", async () => {
    const hidden = await sendChannelMessage(s, s.realm.owner, "secret", "t", "x");
    expectError(await history(hidden), "Invalid message(s)");
    expectError(await history(999999), "Invalid message(s)");
    await s.db.updateTable("realms").set({ allow_edit_history: 0 }).where("id", "=", s.realm.realm.id).execute();
    try {
      expectError(await history(999999), "Message edit history is disabled in this organization");
    } finally {
      await s.db.updateTable("realms").set({ allow_edit_history: 1 }).where("id", "=", s.realm.realm.id).execute();
    }
    expectError(await history(hidden, { allow_empty_topic_name: "x" }), "allow_empty_topic_name is not valid JSON");
    expect((await s.api.get(null, `/messages/${hidden}/history`)).statusCode).toBe(401);
  });
});
