import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, subscribe } from "../support/messages.js";

let s: TestServer;
let design: { id: number; recipient_id: number };
let protectedRoom: { id: number; recipient_id: number };
let sharedRoom: { id: number; recipient_id: number };
let webPublic: { id: number; recipient_id: number };
const ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  const { owner, member, other } = s.realm;
  design = await makeChannel(s, "design", { subscribers: [owner, member] });
  ids.old = await sendChannelMessage(s, owner, "design", "Lunch", "1");
  ids.mid = await sendChannelMessage(s, owner, "design", "plans", "2");
  ids.empty = await sendChannelMessage(s, owner, "design", "", "3");
  ids.newest = await sendChannelMessage(s, owner, "design", "lunch", "4");
  protectedRoom = await makeChannel(s, "protected", { subscribers: [owner], invite_only: true, history_public_to_subscribers: false });
  ids.before = await sendChannelMessage(s, owner, "protected", "before joining", "5");
  await subscribe(s, protectedRoom.recipient_id, [other]);
  ids.after = await sendChannelMessage(s, owner, "protected", "after joining", "6");
  sharedRoom = await makeChannel(s, "shared", { subscribers: [owner], invite_only: true, history_public_to_subscribers: true });
  ids.sharedBefore = await sendChannelMessage(s, owner, "shared", "early", "7");
  await subscribe(s, sharedRoom.recipient_id, [other]);
  webPublic = await makeChannel(s, "open-to-all", { subscribers: [owner], is_web_public: true });
  ids.web = await sendChannelMessage(s, owner, "open-to-all", "hello world", "8");
});
afterAll(() => s.close());

const topics = (user: Parameters<TestServer["api"]["get"]>[0], id: number, params = {}) => s.api.get(user, `/users/me/${id}/topics`, params);

describe("GET /users/me/{stream_id}/topics", () => {
  it("lists topics newest first, case variants merged under the newest spelling, empty topic by its display name", async () => {
    const body = expectSuccess(await topics(s.realm.member, design.id));
    expect(body).toEqual({
      result: "success",
      msg: "",
      topics: [
        { name: "lunch", max_id: ids.newest },
        { name: s.realm.realm.empty_topic_display_name, max_id: ids.empty },
        { name: "plans", max_id: ids.mid },
      ],
    });
    const allowEmpty = expectSuccess(await topics(s.realm.member, design.id, { allow_empty_topic_name: true }));
    expect(allowEmpty.topics[1]).toEqual({ name: "", max_id: ids.empty });
  });

  it("public channels: every topic, also for a non-subscriber", async () => {
    expect(expectSuccess(await topics(s.realm.other, design.id)).topics.map((t: { name: string }) => t.name)).toEqual(["lunch", s.realm.realm.empty_topic_display_name, "plans"]);
  });

  it("protected history: only topics of messages the user received", async () => {
    expect(expectSuccess(await topics(s.realm.other, protectedRoom.id)).topics).toEqual([{ name: "after joining", max_id: ids.after }]);
    expect(expectSuccess(await topics(s.realm.owner, protectedRoom.id)).topics).toEqual([
      { name: "after joining", max_id: ids.after },
      { name: "before joining", max_id: ids.before },
    ]);
    // Shared history: subscribers see what came before they joined.
    expect(expectSuccess(await topics(s.realm.other, sharedRoom.id)).topics).toEqual([{ name: "early", max_id: ids.sharedBefore }]);
  });

  it("refuses channels the user cannot access and channels of other realms", async () => {
    expectError(await topics(s.realm.member, protectedRoom.id), "Invalid channel ID");
    expectError(await topics(s.realm.member, 999999), "Invalid channel ID");
    const foreign = await makeChannel(s, "elsewhere", { subscribers: [s.other.owner] });
    expectError(await topics(s.realm.owner, foreign.id), "Invalid channel ID");
    expectError(await topics(s.realm.member, design.id, { allow_empty_topic_name: "maybe" }), "allow_empty_topic_name is not valid JSON");
  });

  it("spectators: web-public channels only, when the organization allows them", async () => {
    const setSpectators = (on: boolean) => s.db.updateTable("realms").set({ enable_spectator_access: on ? 1 : 0 }).where("id", "=", s.realm.realm.id).execute();
    await setSpectators(true);
    expect(expectSuccess(await topics(null, webPublic.id)).topics).toEqual([{ name: "hello world", max_id: ids.web }]);
    expectError(await topics(null, design.id), "Invalid channel ID");
    await setSpectators(false);
    const res = await topics(null, webPublic.id);
    expect(res.statusCode).toBe(401);
  });
});
