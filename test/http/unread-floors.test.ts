/**
 * /register's unread read starts at each user's unread floor (src/caches/unread-floors.ts):
 * below it every row of the user is read. The floor is learned from a register, survives
 * new messages, and is dropped by whatever can leave an older row unread: marking messages
 * unread (rows the user has, and historical ones the user had none for) and another
 * process's commit. Each test would fail if that path kept the floor: the message marked
 * unread would be missing from unread_msgs. Floors are SQLite's: on PostgreSQL none is
 * learned and every read starts at the user's first row.
 */
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { User } from "../../src/db/schema.js";
import { createChannel } from "../support/channels.js";
import { expectSuccess } from "../support/client.js";
import { register } from "../support/events.js";
import { sendChannelMessage } from "../support/messages.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
beforeAll(async () => {
  // A file, as servers run it: floors are learned only from the read-only connection's reads.
  s = await startTestServer({}, { sqliteFile: true });
  const { member, other } = s.realm;
  await createChannel(s, { name: "floors", subscribers: [member, other] });
});
afterAll(() => s.close());

const UNREAD = { event_types: ["message", "update_message_flags"] };
const floors = () => s.ctx.caches.unreadFloors;
const setRead = async (user: User, messages: number[], op: "add" | "remove") =>
  expectSuccess(await s.api.post(user, "/messages/flags", { messages, op, flag: "read" }));
const unreadIds = async (user: User): Promise<number[]> => {
  const { unread_msgs } = await register(s, user, UNREAD);
  return unread_msgs.streams.flatMap((g: { unread_message_ids: number[] }) => g.unread_message_ids).sort((a: number, b: number) => a - b);
};
const sendSome = async (n: number, topic: string): Promise<number[]> => {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push(await sendChannelMessage(s, s.realm.member, "floors", topic, `message ${i}`));
  return ids;
};

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.runIf(onPostgres)("unread reads on PostgreSQL", () => {
  it("learn no floor: every read walks all of the user's rows", async () => {
    const { other } = s.realm;
    const ids = await sendSome(2, "postgres");
    await setRead(other, ids, "add");
    expect(await unreadIds(other)).toEqual([]);
    expect(floors().floorOf(other.id)).toBeUndefined();
    await setRead(other, [ids[0]], "remove");
    expect(await unreadIds(other)).toEqual([ids[0]]);
    await setRead(other, [ids[0]], "add");
  });
});

describe.skipIf(onPostgres)("unread floors (SQLite)", () => {
  it("are learned from a register and move up with what is read", async () => {
    const { other } = s.realm;
    const ids = await sendSome(4, "learn");
    await setRead(other, ids.slice(0, 2), "add");
    expect(await unreadIds(other)).toEqual(ids.slice(2));
    expect(floors().floorOf(other.id)).toBe(ids[2]);

    await setRead(other, ids.slice(2), "add");
    expect(await unreadIds(other)).toEqual([]);
    // Nothing unread: the floor is the user's newest row.
    expect(floors().floorOf(other.id)).toBe(ids[3]);

    // New messages are above it.
    const more = await sendSome(2, "learn");
    expect(await unreadIds(other)).toEqual(more);
    expect(floors().floorOf(other.id)).toBe(more[0]);
    await setRead(other, more, "add");
  });

  it("drop when a message below the floor is marked unread", async () => {
    const { other } = s.realm;
    const ids = await sendSome(3, "lower");
    await setRead(other, ids, "add");
    expect(await unreadIds(other)).toEqual([]);
    expect(floors().floorOf(other.id)).toBeGreaterThan(ids[0]);

    await setRead(other, [ids[0]], "remove");
    expect(floors().floorOf(other.id)).toBeUndefined();
    expect(await unreadIds(other)).toEqual([ids[0]]);
    await setRead(other, [ids[0]], "add");
  });

  it("drop when an old message the user has no row for is marked unread", async () => {
    const { member, moderator } = s.realm;
    // Sent before the moderator subscribed: the moderator has no row for it.
    const [old] = await sendSome(1, "historical");
    expectSuccess(await s.api.post(moderator, "/users/me/subscriptions", { subscriptions: [{ name: "floors" }] }));
    const newer = await sendChannelMessage(s, member, "floors", "historical", "after subscribing");
    await setRead(moderator, [newer], "add");
    expect(await unreadIds(moderator)).toEqual([]);
    expect(floors().floorOf(moderator.id)).toBe(newer);

    await setRead(moderator, [old], "remove");
    expect(await unreadIds(moderator)).toEqual([old]);
  });

  it("drop when another process commits (its writes are seen through the WAL's commit counter)", async () => {
    const { other } = s.realm;
    await setRead(other, await unreadIds(other), "add");
    const ids = await sendSome(2, "external");
    await setRead(other, ids, "add");
    expect(await unreadIds(other)).toEqual([]);
    expect(floors().floorOf(other.id)).toBe(ids[1]);

    const [{ file }] = (await sql<{ file: string }>`pragma database_list`.execute(s.db)).rows;
    const elsewhere = new SQLite(file);
    try {
      elsewhere.pragma("busy_timeout = 5000");
      elsewhere.prepare("update user_messages set flags = flags & ~1 where user_id = ? and message_id = ?").run(other.id, ids[0]);
    } finally {
      elsewhere.close();
    }
    // The caches' check runs once per turn of the event loop: the next request sees it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await unreadIds(other)).toEqual([ids[0]]);
  });
});
