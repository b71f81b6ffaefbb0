/** Scheduled messages (spec 2.1, 4.1): create, list, edit, delete, with upstream's checks and their order. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import type { Channel, User } from "../../src/db/schema.js";

let s: TestServer;
let room: Channel;
let secret: Channel;
const NOW = 1_900_000_000;
beforeAll(async () => {
  s = await startTestServer();
  s.ctx.now = () => NOW * 1000;
  room = await createChannel(s, { name: "plans", subscribers: [s.realm.member, s.realm.other] });
  secret = await createChannel(s, { name: "secret-plans", invite_only: true, subscribers: [s.realm.admin] });
});
afterAll(() => s.close());

const rows = (user: User) => s.db.selectFrom("scheduled_messages").selectAll().where("sender_id", "=", user.id).orderBy("id").execute();
const schedule = async (user: User, params: Record<string, unknown>) =>
  expectSuccess(await s.api.post(user, "/scheduled_messages", { scheduled_delivery_timestamp: NOW + 3600, content: "later", ...params })).scheduled_message_id as number;
const list = async (user: User) => expectSuccess(await s.api.get(user, "/scheduled_messages")).scheduled_messages;

describe("POST /scheduled_messages and GET /scheduled_messages", () => {
  it("schedules channel and direct messages; lists the sender's own by delivery time", async () => {
    const { member, other, admin } = s.realm;
    const a = await schedule(member, { type: "channel", to: String(room.id), topic: "  lunch ", content: "**hi**", scheduled_delivery_timestamp: NOW + 7200 });
    const b = await schedule(member, { type: "direct", to: [other.id, admin.id, other.id], content: "dm" });
    const c = await schedule(member, { type: "private", to: [member.id], content: "self" });
    const d = await schedule(member, { type: "stream", to: room.id, topic: "(no topic)", content: "empty topic", scheduled_delivery_timestamp: NOW + 60 });
    expect(await list(member)).toEqual([
      { scheduled_message_id: d, to: room.id, type: "stream", content: "empty topic", rendered_content: "<p>empty topic</p>", topic: "", scheduled_delivery_timestamp: NOW + 60, failed: false },
      { scheduled_message_id: b, to: [admin.id, other.id].sort((x, y) => x - y), type: "private", content: "dm", rendered_content: "<p>dm</p>", scheduled_delivery_timestamp: NOW + 3600, failed: false },
      { scheduled_message_id: c, to: [member.id], type: "private", content: "self", rendered_content: "<p>self</p>", scheduled_delivery_timestamp: NOW + 3600, failed: false },
      { scheduled_message_id: a, to: room.id, type: "stream", content: "**hi**", rendered_content: "<p><strong>hi</strong></p>", topic: "lunch", scheduled_delivery_timestamp: NOW + 7200, failed: false },
    ]);
    expect(await list(other)).toEqual([]);
    // Nothing was sent yet; a message to oneself stays unread for its sender when delivered.
    const stored = await rows(member);
    expect(stored.map((r) => [r.delivered, r.read_by_sender])).toEqual([[0, 1], [0, 1], [0, 0], [0, 1]]);
  });

  it("checks parameters, the time, the addressee and the message in upstream's order", async () => {
    const { guest, member } = s.realm;
    const base = { type: "stream", to: String(room.id), topic: "t", content: "c", scheduled_delivery_timestamp: NOW + 10 };
    const cases: Array<[Record<string, unknown>, string, Record<string, unknown>?]> = [
      [{ ...base, type: "dm" }, "Invalid type"],
      [{ ...base, to: undefined }, "Missing 'to' argument"],
      [{ ...base, content: undefined }, "Missing 'content' argument"],
      [{ ...base, scheduled_delivery_timestamp: "soon" }, "scheduled_delivery_timestamp is not valid JSON"],
      [{ ...base, scheduled_delivery_timestamp: 1.5 }, "scheduled_delivery_timestamp is not an integer"],
      [{ ...base, read_by_sender: 1 }, "read_by_sender is not a boolean"],
      [{ ...base, to: "nope", scheduled_delivery_timestamp: NOW }, "Scheduled delivery time must be in the future."],
      [{ ...base, to: "plans" }, "Invalid data type for channel ID"],
      [{ ...base, to: "[9]" }, "Invalid data type for channel ID"],
      [{ ...base, topic: undefined }, "Missing topic"],
      [{ ...base, to: "999999" }, "Stream with ID '999999' does not exist", { code: "STREAM_DOES_NOT_EXIST", stream_id: 999999 }],
      [{ ...base, to: String(secret.id) }, "Not authorized to send to channel 'secret-plans'"],
      [{ ...base, content: "  " }, "Message must not be empty"],
      [{ ...base, topic: "a\u0001b" }, "Invalid character in topic, at position 2!"],
      [{ ...base, type: "direct", to: "5" }, "Invalid data type for recipients"],
      [{ ...base, type: "direct", to: JSON.stringify(["a@b.c"]) }, "Recipient list may only contain user IDs"],
      [{ ...base, type: "direct", to: "[]" }, "Message must have recipients"],
      [{ ...base, type: "direct", to: "[999999]" }, "Invalid user ID 999999"],
      [{ ...base, type: "direct", to: JSON.stringify([s.other.member.id]) }, `Invalid user ID ${s.other.member.id}`],
    ];
    for (const [params, msg, extra] of cases) {
      const code = (extra?.code as string | undefined) ?? (msg.startsWith("Missing '") ? "REQUEST_VARIABLE_MISSING" : "BAD_REQUEST");
      const body = expectError(await s.api.post(member, "/scheduled_messages", params), msg, { code });
      if (extra?.stream_id !== undefined) expect(body.stream_id).toBe(extra.stream_id);
    }
    expectError(await s.api.post(guest, "/scheduled_messages", base), "Not authorized to send to channel 'plans'");
    expect(await rows(guest)).toEqual([]);
    expect((await rows(member)).length).toBe(4);
  });
});

describe("PATCH /scheduled_messages/{id} (spec 4.1)", () => {
  it("checks in upstream's order and changes nothing on failure", async () => {
    const { member, admin } = s.realm;
    const id = await schedule(member, { type: "stream", to: String(room.id), topic: "keep", content: "original" });
    const before = await rows(member);
    const path = `/scheduled_messages/${id}`;
    expectError(await s.api.patch(member, path, { type: "x" }), "Invalid type");
    expectError(await s.api.patch(member, path, {}), "Nothing to change");
    expectError(await s.api.patch(member, path, { type: "direct" }), "Recipient required when updating type of scheduled message.");
    expectError(await s.api.patch(member, path, { type: "channel", to: String(room.id) }), "Topic required when updating scheduled message type to stream.");
    expectError(await s.api.patch(member, path, { scheduled_delivery_timestamp: NOW - 1 }), "Scheduled delivery time must be in the future.");
    expectError(await s.api.patch(member, "/scheduled_messages/999999", { content: "x" }), "Scheduled message does not exist", { status: 404 });
    expectError(await s.api.patch(admin, path, { content: "hijack" }), "Scheduled message does not exist", { status: 404 });
    expectError(await s.api.patch(s.other.owner, path, { content: "hijack" }), "Scheduled message does not exist", { status: 404 });
    expectError(await s.api.patch(member, path, { to: "999999" }), "Stream with ID '999999' does not exist", { code: "STREAM_DOES_NOT_EXIST" });
    expectError(await s.api.patch(member, path, { type: "direct", to: "[999999]" }), "Invalid user ID 999999");
    expectError(await s.api.patch(member, path, { content: "" }), "Message must not be empty");
    expectError(await s.api.patch(member, path, { topic: "a\u0001" }), "Invalid character in topic, at position 2!");
    expect(await rows(member)).toEqual(before);
  });

  it("changes type, recipients, content, topic and time", async () => {
    const { member, other } = s.realm;
    const id = await schedule(member, { type: "stream", to: String(room.id), topic: "t1", content: "one" });
    const path = `/scheduled_messages/${id}`;
    const find = async () => (await list(member)).find((m: any) => m.scheduled_message_id === id);
    expectSuccess(await s.api.patch(member, path, { topic: "t2" }));
    expect(await find()).toMatchObject({ type: "stream", to: room.id, topic: "t2", content: "one" });
    expectSuccess(await s.api.patch(member, path, { type: "direct", to: JSON.stringify([other.id]), topic: "ignored" }));
    expect(await find()).toEqual({ scheduled_message_id: id, type: "private", to: [other.id], content: "one", rendered_content: "<p>one</p>", scheduled_delivery_timestamp: NOW + 3600, failed: false });
    // A topic for a direct message is ignored.
    expectSuccess(await s.api.patch(member, path, { topic: "still ignored" }));
    expect((await find()).topic).toBeUndefined();
    expectSuccess(await s.api.patch(member, path, { content: "two", scheduled_delivery_timestamp: NOW + 99 }));
    expect(await find()).toMatchObject({ content: "two", rendered_content: "<p>two</p>", scheduled_delivery_timestamp: NOW + 99 });
    expectSuccess(await s.api.patch(member, path, { type: "stream", to: String(room.id), topic: "back" }));
    expect(await find()).toMatchObject({ type: "stream", to: room.id, topic: "back", content: "two" });
  });

  it("a failed message needs a new delivery time and becomes pending again; a sent one cannot change", async () => {
    const { member } = s.realm;
    const id = await schedule(member, { type: "stream", to: String(room.id), topic: "t", content: "x" });
    await s.db.updateTable("scheduled_messages").set({ failed: 1, failure_message: "boom" }).where("id", "=", id).execute();
    expectError(await s.api.patch(member, `/scheduled_messages/${id}`, { content: "y" }), "Scheduled delivery time must be in the future.");
    expectSuccess(await s.api.patch(member, `/scheduled_messages/${id}`, { scheduled_delivery_timestamp: NOW + 500 }));
    const [row] = (await rows(member)).filter((r) => r.id === id);
    expect(row).toMatchObject({ failed: 0, failure_message: null, scheduled_timestamp: NOW + 500 });
    await s.db.updateTable("scheduled_messages").set({ delivered: 1 }).where("id", "=", id).execute();
    expectError(await s.api.patch(member, `/scheduled_messages/${id}`, { content: "z" }), "Scheduled message was already sent");
    expect((await list(member)).map((m: any) => m.scheduled_message_id)).not.toContain(id);
  });
});

describe("DELETE /scheduled_messages/{id}", () => {
  it("deletes only the sender's own", async () => {
    const { member, admin } = s.realm;
    const id = await schedule(member, { type: "direct", to: JSON.stringify([admin.id]), content: "bye" });
    expectError(await s.api.delete(admin, `/scheduled_messages/${id}`), "Scheduled message does not exist", { status: 404 });
    expect((await rows(member)).some((r) => r.id === id)).toBe(true);
    expectSuccess(await s.api.delete(member, `/scheduled_messages/${id}`));
    expect((await rows(member)).some((r) => r.id === id)).toBe(false);
    expectError(await s.api.delete(member, `/scheduled_messages/${id}`), "Scheduled message does not exist", { status: 404 });
  });
});
