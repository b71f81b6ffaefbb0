/**
 * On a SQLite file, channel messages are stored by the message writer's thread
 * (src/db/message-writer.ts), and the caches tell other processes' commits from this
 * process's by the WAL's commit counter (src/db/wal-commits.ts), since data_version cannot
 * tell the process's two writing connections apart.
 */
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { messageWriterOf, walCommitsOf } from "../../src/db/connect.js";
import type { NewMessageRow } from "../../src/db/message-writer-protocol.js";
import type { Channel } from "../../src/db/schema.js";
import { FLAG_BITS } from "../../src/lib/message-flags.js";
import { createChannel } from "../support/channels.js";
import { expectSuccess } from "../support/client.js";
import { sendChannelMessage } from "../support/messages.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
let channel: Channel;
/** Another process's connection to the server's database file. */
let other: SQLite.Database;

// PostgreSQL stores every message in its own transaction: there is no thread.
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("the message writer (SQLite on a file)", () => {
  beforeAll(async () => {
    s = await startTestServer({}, { sqliteFile: true });
    channel = await createChannel(s, { name: "writer", subscribers: [s.realm.member, s.realm.other] });
    // The channel's first message records itself on the channel row: it goes through the transaction.
    await sendChannelMessage(s, s.realm.member, "writer", "start", "first");
    other = new SQLite(s.sqlitePath!);
    other.pragma("busy_timeout = 5000");
  });
  afterAll(async () => {
    other.close();
    await s.close();
  });

  const writer = () => messageWriterOf(s.db)!;

  /** A row as a send to the channel stores it. */
  async function newRow(content: string): Promise<NewMessageRow> {
    const { recipient_id } = await s.db.selectFrom("channels").select("recipient_id").where("id", "=", channel.id).executeTakeFirstOrThrow();
    return {
      realm_id: s.realm.realm.id,
      sender_id: s.realm.member.id,
      recipient_id: recipient_id!,
      channel_id: channel.id,
      topic: "unit",
      content,
      rendered_content: `<p>${content}</p>`,
      date_sent: Math.floor(Date.now() / 1000),
      sending_client: "test",
      is_me_message: 0,
      has_image: 0,
      has_link: 0,
    };
  }

  const storedFlags = (messageId: number) =>
    Object.fromEntries(
      (other.prepare("select user_id, flags from user_messages where message_id = ?").all(messageId) as Array<{ user_id: number; flags: number }>).map((r) => [r.user_id, r.flags]),
    );

  describe("a channel message", () => {
    it("is stored by the thread with each recipient's flags, durably before the answer", async () => {
      const write = vi.spyOn(writer(), "write");
      try {
        const { member, other: mentioned } = s.realm;
        const id = await sendChannelMessage(s, member, "writer", "flags", `hello @**${mentioned.full_name}**`);
        expect(write).toHaveBeenCalledTimes(1);
        // Another process's connection sees it as soon as the send is answered.
        const row = other.prepare("select content, sender_id, channel_id, topic from messages where id = ?").get(id);
        expect(row).toEqual({ content: `hello @**${mentioned.full_name}**`, sender_id: member.id, channel_id: channel.id, topic: "flags" });
        expect(storedFlags(id)).toEqual({ [member.id]: FLAG_BITS.read, [mentioned.id]: FLAG_BITS.mentioned });
        // The sender reads it back at once (the read connection's snapshot ended with the COMMIT).
        const fetched = expectSuccess(await s.api.get(member, `/messages/${id}`));
        expect(fetched.message.content).toContain("hello");
      } finally {
        write.mockRestore();
      }
    });

    it("sent in one turn with others shares their batch: one transaction, two statements a message", async () => {
      const rows = await Promise.all([1, 2, 3, 4, 5].map((i) => newRow(`batch ${i}`)));
      const recipients = [[s.realm.member.id, FLAG_BITS.read] as const, [s.realm.other.id, 0] as const];
      let ids: number[] = [];
      const statements = await s.countQueries(async () => {
        ids = (await Promise.all(rows.map((row) => writer().write(row, recipients)))).map((m) => m.id);
      });
      // BEGIN, then an INSERT of the message and one of its per-user rows for each, then COMMIT.
      expect(statements).toBe(2 + 2 * rows.length);
      expect(new Set(ids).size).toBe(5);
      for (const id of ids) expect(storedFlags(id)).toEqual({ [s.realm.member.id]: FLAG_BITS.read, [s.realm.other.id]: 0 });
    });

    it("that cannot be stored fails alone; the others of its batch are stored", async () => {
      const [good, bad, alsoGood] = await Promise.all([newRow("good"), newRow("bad"), newRow("also good")]);
      const recipients = [[s.realm.member.id, 0] as const];
      const results = await Promise.allSettled([
        writer().write(good, recipients),
        // A message without content: the NOT NULL constraint refuses the row.
        writer().write({ ...bad, content: null as unknown as string }, recipients),
        writer().write(alsoGood, recipients),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(String((results[1] as PromiseRejectedResult).reason)).toContain("NOT NULL constraint failed: messages.content");
      const stored = other.prepare("select content from messages where content in ('good', 'also good') or rendered_content = '<p>bad</p>' order by id").pluck().all();
      expect(stored).toEqual(["good", "also good"]);
    });

    it("holding a NUL is refused before it reaches the thread, as every write is", async () => {
      await expect(writer().write(await newRow("nul \u0000 here"), [])).rejects.toThrow("Text must not contain null bytes");
    });
  });

  describe("other processes' commits", () => {
    const commits = () => walCommitsOf(s.db)!;
    let renames = 0;
    // A real change: a write of a row's own values changes no page and commits nothing.
    const otherProcessWrites = () => other.prepare("update users set full_name = ? where id = ?").run(`Guest ${++renames}`, s.realm.guest.id);

    it("are told from the thread's and the group's commits", async () => {
      commits().changed();
      await writer().write(await newRow("own"), [[s.realm.member.id, 0]]);
      expect(commits().changed()).toBe(false);
      // Writing a row's own values changes rows but no page: the commit marker makes the COMMIT count.
      await s.db.updateTable("users").set({ full_name: s.realm.owner.full_name }).where("id", "=", s.realm.owner.id).execute();
      expect(commits().changed()).toBe(false);
      await s.db.updateTable("users").set({ timezone: "Europe/Paris" }).where("id", "=", s.realm.owner.id).execute();
      expect(commits().changed()).toBe(false);
      otherProcessWrites();
      expect(commits().changed()).toBe(true);
      expect(commits().changed()).toBe(false);
    });

    it("are seen when they land between the thread's commits", async () => {
      commits().changed();
      const row = await newRow("after another process");
      const written = writer().write(row, [[s.realm.member.id, 0]]);
      // The batch goes at the turn's end: this commit comes before the thread's.
      otherProcessWrites();
      await written;
      expect(commits().changed()).toBe(true);
      expect(commits().changed()).toBe(false);
    });

    it("flush the caches: a rename by another process shows on the next request", async () => {
      const { member, other: renamed } = s.realm;
      expectSuccess(await s.api.get(member, `/users/${renamed.id}`));
      await sendChannelMessage(s, member, "writer", "names", "before the rename");
      other.prepare("update users set full_name = ? where id = ?").run("Renamed Elsewhere", renamed.id);
      await sendChannelMessage(s, member, "writer", "names", "after the rename");
      expect(expectSuccess(await s.api.get(member, `/users/${renamed.id}`)).user.full_name).toBe("Renamed Elsewhere");
    });
  });

  describe("closing the database", () => {
    it("waits for the messages already written", async () => {
      const t = await startTestServer({}, { sqliteFile: true });
      const ch = await createChannel(t, { name: "closing", subscribers: [t.realm.member] });
      await sendChannelMessage(t, t.realm.member, "closing", "t", "first");
      const { recipient_id } = await t.db.selectFrom("channels").select("recipient_id").where("id", "=", ch.id).executeTakeFirstOrThrow();
      const row: NewMessageRow = {
        realm_id: t.realm.realm.id,
        sender_id: t.realm.member.id,
        recipient_id: recipient_id!,
        channel_id: ch.id,
        topic: "t",
        content: "last words",
        rendered_content: "<p>last words</p>",
        date_sent: Math.floor(Date.now() / 1000),
        sending_client: "test",
        is_me_message: 0,
        has_image: 0,
        has_link: 0,
      };
      const written = messageWriterOf(t.db)!.write(row, [[t.realm.member.id, 0]]);
      const closing = t.db.destroy();
      // It resolves only once its COMMIT is done.
      await expect(written).resolves.toMatchObject({ content: "last words" });
      await closing;
      await expect(messageWriterOf(t.db)!.write(row, [])).rejects.toThrow("closed");
      await t.close().catch(() => undefined);
    });
  });
});
