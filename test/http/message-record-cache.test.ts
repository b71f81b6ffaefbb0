/**
 * GET /messages/{id} answers from a per-message cache of the reader-independent record
 * (src/caches/message-records.ts): each test reads a message (filling the cache), changes
 * what the record shows (through the API, a direct write of this process, or as another
 * node would: a write this process does not see plus the event on the bus) and expects the
 * new value on the very next request. Access and flags are never cached: a reader who lost
 * access is refused on the next request, and each reader sees their own flags.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/messages.js";
import { startTestServer, type TestServer } from "../support/server.js";
import type { User } from "../../src/db/schema.js";
import SQLite from "better-sqlite3";
import { sql } from "kysely";

let s: TestServer;

const read = async (user: User | null, id: number, params = {}) => expectSuccess(await s.api.get(user, `/messages/${id}`, params));
const message = async (user: User | null, id: number, params = {}) => (await read(user, id, params)).message;
const refused = async (user: User, id: number) => expectError(await s.api.get(user, `/messages/${id}`), "Invalid message(s)");
/** The database without the cache write watcher: a write another node (or process) made. */
const elsewhere = () => s.db.withoutPlugins();

let channelCount = 0;
async function channelWithMessage(opts: { invite_only?: boolean; history_public_to_subscribers?: boolean; is_web_public?: boolean } = {}) {
  const { owner, member, other } = s.realm;
  const name = `record cache ${++channelCount}`;
  const channel = await makeChannel(s, name, { subscribers: [owner, member, other], ...opts });
  const id = await sendChannelMessage(s, other, name, "cached topic", "cached **content**");
  return { channel, id };
}

// In memory (every read through Kysely on the one connection) and in a file, as servers run
// it: compiled reads go straight to the read-only connection and the access facts are
// reused while nothing has been committed (caches/message-reader-access.ts).
describe.each([
  { storage: "in memory", sqliteFile: false },
  { storage: "in a file", sqliteFile: true },
])("SQLite $storage", ({ sqliteFile }) => {
  beforeAll(async () => {
    s = await startTestServer({}, { sqliteFile });
  });
  afterAll(() => s.close());

  describe("the record follows changes to what it shows", () => {
    it("an edit through the API, and a direct write that publishes no event", async () => {
      const { member, other } = s.realm;
      const { id } = await channelWithMessage();
      expect((await read(member, id)).raw_content).toBe("cached **content**");
      expectSuccess(await s.api.patch(other, `/messages/${id}`, { content: "edited content" }));
      const edited = await read(member, id);
      expect(edited.raw_content).toBe("edited content");
      expect(edited.message.content).toBe("<p>edited content</p>");
      expect(edited.message.edit_history).toHaveLength(1);
      await s.db.updateTable("messages").set({ rendered_content: "<p>rewritten</p>" }).where("id", "=", id).execute();
      expect((await message(member, id)).content).toBe("<p>rewritten</p>");
    });

    it("another node's edit: a row written elsewhere plus its event", async () => {
      const { member } = s.realm;
      const { id } = await channelWithMessage();
      await message(member, id);
      await elsewhere().updateTable("messages").set({ content: "from another node", rendered_content: "<p>from another node</p>" }).where("id", "=", id).execute();
      s.ctx.events.publish(s.realm.realm.id, { type: "update_message", message_id: id, message_ids: [id], rendering_only: false }, []);
      expect((await read(member, id)).raw_content).toBe("from another node");
    });

    it("reactions added and removed, here and on another node", async () => {
      const { member, other } = s.realm;
      const { id } = await channelWithMessage();
      expect((await message(member, id)).reactions).toEqual([]);
      expectSuccess(await s.api.post(other, `/messages/${id}/reactions`, { emoji_name: "tada" }));
      expect((await message(member, id)).reactions).toMatchObject([{ emoji_name: "tada", user_id: other.id }]);
      expectSuccess(await s.api.delete(other, `/messages/${id}/reactions`, { emoji_name: "tada" }));
      expect((await message(member, id)).reactions).toEqual([]);
      await elsewhere().insertInto("reactions").values({ realm_id: s.realm.realm.id, message_id: id, user_id: other.id, emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" }).execute();
      s.ctx.events.publish(s.realm.realm.id, { type: "reaction", op: "add", message_id: id, user_id: other.id, emoji_name: "smile" }, []);
      expect((await message(member, id)).reactions).toMatchObject([{ emoji_name: "smile" }]);
    });

    it("the sender's new name and avatar", async () => {
      const { admin, member, other } = s.realm;
      const { id } = await channelWithMessage();
      const before = await message(member, id);
      expectSuccess(await s.api.patch(admin, `/users/${other.id}`, { full_name: "Renamed Sender" }));
      expect((await message(member, id)).sender_full_name).toBe("Renamed Sender");
      await s.db.updateTable("users").set({ avatar_source: "U", avatar_version: 7 }).where("id", "=", other.id).execute();
      const after = await message(member, id);
      expect(after.avatar_url).not.toBe(before.avatar_url);
      expect(after.avatar_url).toContain("7");
    });

    it("the channel's new name", async () => {
      const { admin, member } = s.realm;
      const { channel, id } = await channelWithMessage();
      await message(member, id);
      expectSuccess(await s.api.patch(admin, `/streams/${channel.id}`, { new_name: `${channel.name} renamed` }));
      expect((await message(member, id)).display_recipient).toBe(`${channel.name} renamed`);
    });

    it("a move to another channel and topic", async () => {
      const { member, other } = s.realm;
      const { id } = await channelWithMessage();
      const target = await channelWithMessage();
      await message(member, id);
      expectSuccess(await s.api.patch(other, `/messages/${id}`, { stream_id: target.channel.id, topic: "moved here" }));
      expect(await message(member, id)).toMatchObject({ stream_id: target.channel.id, display_recipient: target.channel.name, subject: "moved here" });
    });

    it("a move this process has not heard of yet never shows the old channel", async () => {
      const { member } = s.realm;
      const { id } = await channelWithMessage();
      const target = await channelWithMessage();
      await message(member, id);
      // Another node moved it and its event is still on the way: the access check reads the new channel.
      await elsewhere().updateTable("messages").set({ channel_id: target.channel.id, recipient_id: target.channel.recipient_id }).where("id", "=", id).execute();
      expect(await message(member, id)).toMatchObject({ stream_id: target.channel.id, display_recipient: target.channel.name });
    });

    it("a new linkifier shows in the topic links", async () => {
      const { admin, member, other } = s.realm;
      const channel = await makeChannel(s, "record cache tickets", { subscribers: [member, other] });
      const id = await sendChannelMessage(s, other, channel.name, "ticket RC-42", "see the ticket");
      expect((await message(member, id)).topic_links).toEqual([]);
      expectSuccess(await s.api.post(admin, "/realm/filters", { pattern: "RC-(?P<n>\\d+)", url_template: "https://tickets.example.com/{n}" }));
      expect((await message(member, id)).topic_links).toEqual([{ text: "RC-42", url: "https://tickets.example.com/42" }]);
    });

    it("a realm that stops showing edit history", async () => {
      const { member, other, owner } = s.realm;
      const { id } = await channelWithMessage();
      expectSuccess(await s.api.patch(other, `/messages/${id}`, { content: "edited once" }));
      expect((await message(member, id)).edit_history).toHaveLength(1);
      expectSuccess(await s.api.patch(owner, "/realm", { allow_edit_history: false }));
      try {
        expect((await message(member, id)).edit_history).toBeUndefined();
      } finally {
        expectSuccess(await s.api.patch(owner, "/realm", { allow_edit_history: true }));
      }
    });

    it("the options each get their own serialized record", async () => {
      const { member } = s.realm;
      const { id } = await channelWithMessage();
      expect((await message(member, id)).content_type).toBe("text/html");
      expect(await message(member, id, { apply_markdown: false })).toMatchObject({ content: "cached **content**", content_type: "text/x-markdown" });
      expect((await message(member, id)).content).toBe("<p>cached <strong>content</strong></p>");
    });

    it("a deleted message is refused on the next request", async () => {
      const { member, other } = s.realm;
      const { id } = await channelWithMessage();
      await message(member, id);
      expectSuccess(await s.api.delete(s.realm.admin, `/messages/${id}`));
      await refused(member, id);
      await refused(other, id);
    });
  });

  describe("access and flags are the reader's own, on every request", () => {
    it("each reader sees their own flags, and a new flag at once", async () => {
      const { member, other, owner } = s.realm;
      const { id } = await channelWithMessage();
      expect((await message(other, id)).flags).toEqual(["read"]);
      expect((await message(member, id)).flags).toEqual([]);
      expectSuccess(await s.api.post(member, "/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "starred" }));
      expect((await message(member, id)).flags).toEqual(["starred"]);
      expectSuccess(await s.api.post(member, "/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "read" }));
      expect((await message(member, id)).flags).toEqual(["read", "starred"]);
      expect((await message(other, id)).flags).toEqual(["read"]);
      // A reader with no per-user row (a public channel they never received it in).
      await s.db.deleteFrom("user_messages").where("message_id", "=", id).where("user_id", "=", owner.id).execute();
      expect((await message(owner, id)).flags).toEqual(["read", "historical"]);
    });

    it("an unsubscribed reader of a private channel is refused on the next request", async () => {
      const { member } = s.realm;
      const { channel, id } = await channelWithMessage({ invite_only: true });
      await message(member, id);
      expectSuccess(await s.api.delete(member, "/users/me/subscriptions", { subscriptions: JSON.stringify([channel.name]) }));
      await refused(member, id);
    });

    it("a subscription ended by another node (no event yet) is refused on the next request", async () => {
      const { member } = s.realm;
      const { channel, id } = await channelWithMessage({ invite_only: true });
      await message(member, id);
      await elsewhere().updateTable("subscriptions").set({ active: 0 }).where("user_id", "=", member.id).where("recipient_id", "=", channel.recipient_id).execute();
      await refused(member, id);
    });

    it("a channel made private shuts out readers who are not subscribed", async () => {
      const { owner, member, guest } = s.realm;
      const channel = await makeChannel(s, "record cache going private", { subscribers: [owner] });
      const id = await sendChannelMessage(s, owner, channel.name, "t", "soon private");
      await message(member, id);
      expectSuccess(await s.api.patch(owner, `/streams/${channel.id}`, { is_private: true }));
      await refused(member, id);
      await refused(guest, id);
      expect((await message(owner, id)).content).toBe("<p>soon private</p>");
    });

    it("a direct message is read by its participants only", async () => {
      const { member, other, admin } = s.realm;
      const id = await sendDirectMessage(s, other, [member], "just us");
      expect((await message(member, id)).display_recipient.map((u: { id: number }) => u.id).sort()).toEqual([member.id, other.id].sort((a, b) => a - b));
      await refused(admin, id);
    });

    it("a deactivated reader is refused on the next request", async () => {
      const { admin, member } = s.realm;
      const { id } = await channelWithMessage();
      await message(member, id);
      expectSuccess(await s.api.delete(admin, `/users/${member.id}`));
      try {
        expectError(await s.api.get(member, `/messages/${id}`), "Account is deactivated", { status: 401, code: "UNAUTHORIZED" });
      } finally {
        expectSuccess(await s.api.post(admin, `/users/${member.id}/reactivate`));
      }
    });

    it("spectators lose a channel that stops being web-public on the next request", async () => {
      const { owner } = s.realm;
      const { channel, id } = await channelWithMessage({ is_web_public: true });
      await s.db.updateTable("realms").set({ enable_spectator_access: 1 }).where("id", "=", s.realm.realm.id).execute();
      try {
        expect((await message(null, id)).flags).toEqual(["read"]);
        expectSuccess(await s.api.patch(owner, `/streams/${channel.id}`, { is_web_public: false }));
        expectError(await s.api.get(null, `/messages/${id}`), "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
      } finally {
        await s.db.updateTable("realms").set({ enable_spectator_access: 0 }).where("id", "=", s.realm.realm.id).execute();
      }
    });
  });
});

// SQLite only: on PostgreSQL the facts are read on every request (the describe.each above).
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("the access facts on SQLite in a file: reused only while nothing was committed", () => {
  beforeAll(async () => {
    s = await startTestServer({}, { sqliteFile: true });
  });
  afterAll(() => s.close());

  const statementsOfRead = (user: User, id: number) => s.countQueries(() => message(user, id), { warm: true });

  it("a repeated read runs no statement; after any commit, even of an unrelated row, it reads the rows again", async () => {
    const { member, other } = s.realm;
    const { id } = await channelWithMessage();
    await message(member, id);
    expect(await statementsOfRead(member, id)).toBe(0);
    await elsewhere().updateTable("users").set({ timezone: "Europe/Paris" }).where("id", "=", other.id).execute();
    expect(await statementsOfRead(member, id)).toBe(1);
    expect(await statementsOfRead(member, id)).toBe(0);
  });

  it("another process's commit to the file is seen by the next request received", async () => {
    const { member } = s.realm;
    const { channel, id } = await channelWithMessage({ invite_only: true });
    await message(member, id);
    const [{ file }] = (await sql<{ file: string }>`pragma database_list`.execute(s.db)).rows;
    const otherProcess = new SQLite(file);
    try {
      otherProcess.prepare("update subscriptions set active = 0 where user_id = ? and recipient_id = ?").run(member.id, channel.recipient_id);
    } finally {
      otherProcess.close();
    }
    // A request received after that commit starts in a later turn of the event loop, whose
    // check of the WAL's commit counter flushes the caches (injected requests share a turn otherwise).
    await new Promise((resolve) => setImmediate(resolve));
    await refused(member, id);
  });

  it("each reader's flags are their own, and a spectator's entry is the realm's", async () => {
    const { member, other } = s.realm;
    const { id } = await channelWithMessage({ is_web_public: true });
    expect((await message(other, id)).flags).toEqual(["read"]);
    expect((await message(member, id)).flags).toEqual([]);
    expect((await message(other, id)).flags).toEqual(["read"]);
    const realms = [s.realm.realm.id, s.other.realm.id];
    await s.db.updateTable("realms").set({ enable_spectator_access: 1 }).where("id", "in", realms).execute();
    try {
      expect((await message(null, id)).flags).toEqual(["read"]);
      expect((await message(null, id)).flags).toEqual(["read"]);
      // The same message id asked for by a spectator of another organization: not theirs.
      const res = await s.api.get(null, `/messages/${id}`, {}, { host: s.other.host });
      expectError(res, "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
    } finally {
      await s.db.updateTable("realms").set({ enable_spectator_access: 0 }).where("id", "in", realms).execute();
    }
  });
});
