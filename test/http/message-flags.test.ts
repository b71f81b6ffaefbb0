import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/messages.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, member, other } = s.realm;
  await makeChannel(s, "design", { subscribers: [owner, member, other] });
  await makeChannel(s, "secret", { subscribers: [owner], invite_only: true });
  ids = {
    a: await sendChannelMessage(s, other, "design", "t", "one"),
    b: await sendChannelMessage(s, other, "design", "t", "@**Mary Member** two"),
    dm: await sendDirectMessage(s, other, [member], "three"),
    sec: await sendChannelMessage(s, owner, "secret", "t", "hidden"),
  };
});
afterAll(() => s.close());

async function flags(userId: number, messageId: number): Promise<number | undefined> {
  const row = await s.db.selectFrom("user_messages").select("flags").where("user_id", "=", userId).where("message_id", "=", messageId).executeTakeFirst();
  return row?.flags;
}

describe("POST /messages/flags", () => {
  it("marks messages as read and reports the changed ones in the event", async () => {
    const { member } = s.realm;
    published = [];
    const body = expectSuccess(await s.api.post(member, "/messages/flags", { messages: [ids.a, ids.dm], op: "add", flag: "read" }));
    expect(body.messages).toEqual([ids.a, ids.dm]);
    expect(await flags(member.id, ids.a)).toBe(1);
    expect(await flags(member.id, ids.dm)).toBe(1 | 256);
    expect(published).toEqual([
      { realmId: s.realm.realm.id, userIds: [member.id], event: { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [ids.a, ids.dm], all: false } },
    ]);
    // Already read: nothing changes, the response still echoes the request.
    published = [];
    const again = expectSuccess(await s.api.post(member, "/messages/flags", { messages: [ids.a], op: "add", flag: "read" }));
    expect(again.messages).toEqual([ids.a]);
    expect(published[0].event.messages).toEqual([]);
  });

  it("marks messages unread with details for the unread counts", async () => {
    const { member, other } = s.realm;
    published = [];
    expectSuccess(await s.api.post(member, "/messages/flags", { messages: [ids.a, ids.dm, ids.b], op: "remove", flag: "read" }));
    expect(await flags(member.id, ids.a)).toBe(0);
    const ev = published[0].event;
    expect(ev.messages).toEqual([ids.a, ids.dm]);
    expect(ev.message_details).toEqual({
      [ids.a]: { type: "stream", stream_id: expect.any(Number), topic: "t", unmuted_stream_msg: true },
      [ids.dm]: { type: "private", user_ids: [other.id] },
    });
  });

  it("stars and unstars, including messages never received", async () => {
    const { member, moderator } = s.realm;
    expectSuccess(await s.api.post(member, "/messages/flags", { messages: [ids.b], op: "add", flag: "starred" }));
    expect(await flags(member.id, ids.b)).toBe(2 | 8);
    expectSuccess(await s.api.post(member, "/messages/flags", { messages: [ids.b], op: "remove", flag: "starred" }));
    expect(await flags(member.id, ids.b)).toBe(8);
    // A public-channel message the moderator never received gets a historical row.
    expect(await flags(moderator.id, ids.a)).toBeUndefined();
    expectSuccess(await s.api.post(moderator, "/messages/flags", { messages: [ids.a], op: "add", flag: "starred" }));
    expect(await flags(moderator.id, ids.a)).toBe(1 | 2 | 128);
    const m = expectSuccess(await s.api.get(moderator, `/messages/${ids.a}`)).message;
    expect(m.flags).toEqual(["read", "starred", "historical"]);
    // Marking read a message without a row changes nothing (it already reads as read).
    expectSuccess(await s.api.post(moderator, "/messages/flags", { messages: [ids.b], op: "add", flag: "read" }));
    expect(await flags(moderator.id, ids.b)).toBeUndefined();
  });

  it("rejects inaccessible messages without changing anything", async () => {
    const { member } = s.realm;
    const before = await flags(member.id, ids.a);
    expectError(await s.api.post(member, "/messages/flags", { messages: [ids.a, ids.sec], op: "add", flag: "starred" }), "Invalid message(s)");
    expectError(await s.api.post(member, "/messages/flags", { messages: [999999], op: "add", flag: "starred" }), "Invalid message(s)");
    expect(await flags(member.id, ids.a)).toBe(before);
    expect(await flags(member.id, ids.sec)).toBeUndefined();
    expectError(await s.api.post(s.other.member, "/messages/flags", { messages: [ids.a], op: "add", flag: "starred" }, { host: s.other.host }), "Invalid message(s)");
  });

  it("validates flag, operation and parameters in order", async () => {
    const { member } = s.realm;
    const post = (params: Record<string, unknown>) => s.api.post(member, "/messages/flags", params);
    expectError(await post({ op: "add", flag: "read" }), "Missing 'messages' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ messages: "[1,\"x\"]", op: "add", flag: "read" }), 'messages[1] is not an integer');
    expectError(await post({ messages: [ids.a], flag: "read" }), "Missing 'op' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ messages: [ids.a], op: "add" }), "Missing 'flag' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ messages: [ids.a], op: "add", flag: "shiny" }), "Invalid flag: 'shiny'");
    expectError(await post({ messages: [ids.a], op: "add", flag: "is_private" }), "Invalid flag: 'is_private'");
    expectError(await post({ messages: [ids.a], op: "add", flag: "mentioned" }), "Flag not editable: 'mentioned'");
    expectError(await post({ messages: [ids.a], op: "add", flag: "historical" }), "Flag not editable: 'historical'");
    expectError(await post({ messages: [ids.a], op: "toggle", flag: "read" }), "Invalid message flag operation: 'toggle'");
    expectSuccess(await post({ messages: [ids.a], op: "add", flag: "collapsed" }));
    expect((await flags(member.id, ids.a))! & 4).toBe(4);
    expect((await s.api.post(null, "/messages/flags", { messages: [ids.a], op: "add", flag: "read" })).statusCode).toBe(401);
  });
});

describe("POST /messages/flags/narrow", () => {
  it("marks the messages of a narrow as read and reports the range", async () => {
    const { member, other } = s.realm;
    const x = await sendChannelMessage(s, other, "design", "bulk", "x");
    const y = await sendChannelMessage(s, other, "design", "bulk", "y");
    const body = expectSuccess(
      await s.api.post(member, "/messages/flags/narrow", {
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        narrow: [{ operator: "channel", operand: "design" }, { operator: "topic", operand: "bulk" }],
        op: "add",
        flag: "read",
      }),
    );
    expect(body).toEqual({ result: "success", msg: "", processed_count: 2, updated_count: 2, first_processed_id: x, last_processed_id: y, found_oldest: true, found_newest: true });
    expect(await flags(member.id, x)).toBe(1);
    const again = expectSuccess(
      await s.api.post(member, "/messages/flags/narrow", { anchor: String(y), num_before: 5, num_after: 0, narrow: [["stream", "design"], ["topic", "bulk"]], op: "add", flag: "read" }),
    );
    expect(again).toMatchObject({ processed_count: 2, updated_count: 0, found_oldest: true, found_newest: false });
    const empty = expectSuccess(await s.api.post(member, "/messages/flags/narrow", { anchor: "newest", num_before: 0, num_after: 0, narrow: [], op: "add", flag: "read" }));
    expect(empty).toMatchObject({ processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null });
  });

  it("validates its parameters", async () => {
    const { member } = s.realm;
    const post = (params: Record<string, unknown>) => s.api.post(member, "/messages/flags/narrow", params);
    const base = { anchor: "newest", num_before: 1, num_after: 1, narrow: [], op: "add", flag: "read" };
    expectError(await post({ ...base, anchor: undefined }), "Missing 'anchor' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ ...base, num_before: undefined }), "Missing 'num_before' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ ...base, include_anchor: false }), "The anchor can only be excluded at an end of the range");
    expectError(await post({ ...base, anchor: "soon" }), "Invalid anchor");
    expectError(await post({ ...base, flag: "mentioned" }), "Flag not editable: 'mentioned'");
    expectError(await post({ ...base, narrow: [{ operator: "is", operand: "odd" }] }), "Invalid narrow operator: unknown 'is' operand odd", { code: "BAD_NARROW" });
  });
});
