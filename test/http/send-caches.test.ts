/**
 * The send path's caches (src/caches/send-lookups.ts: the channel, its recipients with
 * their alert words, the sender's groups, the realm's linkifiers) never serve a stale
 * value: each test sends once (filling them), changes the underlying rows through the API,
 * through a direct write of this process, or as another node would (a write this process
 * does not see, plus the event on the bus) or in a transaction that rolls back, and expects
 * the next send to follow. Last, a send replayed with its commit group (db/group-commit.ts)
 * is stored and announced once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doCreateUser } from "../../src/actions/users-create.js";
import { doSendMessage } from "../../src/actions/messages.js";
import { withTransaction } from "../../src/db/tx.js";
import { cachedChannelRecipients } from "../../src/lib/send-lookups.js";
import type { Channel, User } from "../../src/db/schema.js";
import { Role } from "../../src/lib/roles.js";
import { FLAG_BITS } from "../../src/lib/message-flags.js";
import { expectError, expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

let counter = 0;
async function makeUser(): Promise<User> {
  counter++;
  return doCreateUser(s.ctx, s.realm.realm, { email: `sendcache${counter}@example.com`, fullName: `Send Cache ${counter}`, password: null, role: Role.MEMBER });
}
/** A channel with its first message sent (which sets the channel's first_message_id: a channel write, flushing). */
async function makeChannel(subscribers: User[]): Promise<Channel> {
  counter++;
  const channel = await createChannel(s, { name: `send cache ${counter}`, subscribers: [s.realm.member, ...subscribers] });
  await send(channel.name);
  return channel;
}
const send = async (to: string, content = "hello", sender = s.realm.member) =>
  expectSuccess(await s.api.post(sender, "/messages", { type: "stream", to, topic: "cached", content })).id as number;
/** Each recipient's flags on the message, by user id. */
async function rowsOf(messageId: number): Promise<Map<number, number>> {
  const rows = await s.db.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", messageId).execute();
  return new Map(rows.map((r) => [r.user_id, r.flags]));
}
/** The database without the cache write watcher: a write another node (or process) made. */
const elsewhere = () => s.db.withoutPlugins();

describe("a channel's recipients", () => {
  it("follow an unsubscription and a subscription through the API", async () => {
    const user = await makeUser();
    const channel = await makeChannel([user]);
    expect((await rowsOf(await send(channel.name))).has(user.id)).toBe(true);
    expectSuccess(await s.api.delete(user, "/users/me/subscriptions", { subscriptions: JSON.stringify([channel.name]) }));
    expect((await rowsOf(await send(channel.name))).has(user.id)).toBe(false);
    expectSuccess(await s.api.post(user, "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: channel.name }]) }));
    expect((await rowsOf(await send(channel.name))).has(user.id)).toBe(true);
  });

  it("follow a deactivated user and a direct write to the subscription", async () => {
    const [gone, written] = [await makeUser(), await makeUser()];
    const channel = await makeChannel([gone, written]);
    await send(channel.name);
    expectSuccess(await s.api.delete(s.realm.admin, `/users/${gone.id}`));
    await s.db.updateTable("subscriptions").set({ active: 0 }).where("user_id", "=", written.id).where("recipient_id", "=", channel.recipient_id!).execute();
    const rows = await rowsOf(await send(channel.name));
    expect([rows.has(gone.id), rows.has(written.id), rows.has(s.realm.member.id)]).toEqual([false, false, true]);
  });

  it("forget what a transaction that rolled back had written when they were read", async () => {
    const user = await makeUser();
    const channel = await makeChannel([]);
    // Inside a transaction the recipients are read with its own uncommitted subscription
    // (as a send in the same transaction or commit group would read them), then it fails.
    const failing = withTransaction(s.db, async (tx) => {
      await tx.insertInto("subscriptions").values({ realm_id: s.realm.realm.id, user_id: user.id, recipient_id: channel.recipient_id! }).execute();
      const seen = await cachedChannelRecipients(s.ctx, tx, s.realm.realm.id, channel);
      expect(seen.userIds).toContain(user.id);
      throw new Error("rolled back");
    });
    await expect(failing).rejects.toThrow("rolled back");
    expect((await cachedChannelRecipients(s.ctx, s.db, s.realm.realm.id, channel)).userIds).not.toContain(user.id);
    expect((await rowsOf(await send(channel.name))).has(user.id)).toBe(false);
  });

  it("follow another node's subscription change with its event", async () => {
    const user = await makeUser();
    const channel = await makeChannel([user]);
    await send(channel.name);
    await elsewhere().updateTable("subscriptions").set({ active: 0 }).where("user_id", "=", user.id).where("recipient_id", "=", channel.recipient_id!).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "subscription", op: "remove", subscriptions: [{ stream_id: channel.id, name: channel.name }] }, [user.id]);
    expect((await rowsOf(await send(channel.name))).has(user.id)).toBe(false);
  });

  it("follow a new alert word", async () => {
    const user = await makeUser();
    const channel = await makeChannel([user]);
    expect((await rowsOf(await send(channel.name, "the zeppelin lands"))).get(user.id)! & FLAG_BITS.has_alert_word).toBe(0);
    await s.db.insertInto("alert_words").values({ realm_id: s.realm.realm.id, user_id: user.id, word: "zeppelin" }).execute();
    expect((await rowsOf(await send(channel.name, "the zeppelin lands"))).get(user.id)! & FLAG_BITS.has_alert_word).toBe(FLAG_BITS.has_alert_word);
  });
});

describe("the addressed channel", () => {
  it("follows a rename: the old name is unknown on the next send", async () => {
    const channel = await makeChannel([]);
    await send(channel.name);
    const renamed = `${channel.name} renamed`;
    expectSuccess(await s.api.patch(s.realm.admin, `/streams/${channel.id}`, { new_name: renamed }));
    expectError(await s.api.post(s.realm.member, "/messages", { type: "stream", to: channel.name, topic: "t", content: "x" }), `Stream '${channel.name}' does not exist`, { code: "STREAM_DOES_NOT_EXIST" });
    await send(renamed);
  });

  it("follows its can_send_message_group, and the sender's groups follow a new membership", async () => {
    const channel = await makeChannel([]);
    await send(channel.name);
    const group = expectSuccess(await s.api.post(s.realm.owner, "/user_groups/create", { name: `senders ${counter}`, description: "d", members: JSON.stringify([s.realm.admin.id]) })).group_id as number;
    await s.db.updateTable("channels").set({ can_send_message_group_id: group }).where("id", "=", channel.id).execute();
    expectError(await s.api.post(s.realm.member, "/messages", { type: "stream", to: channel.name, topic: "t", content: "x" }), "You do not have permission to post in this channel.");
    expectSuccess(await s.api.post(s.realm.owner, `/user_groups/${group}/members`, { add: JSON.stringify([s.realm.member.id]) }));
    await send(channel.name);
    // Another node removes the membership: its write plus the event.
    await elsewhere().deleteFrom("user_group_members").where("group_id", "=", group).where("user_id", "=", s.realm.member.id).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "user_group", op: "remove_members", group_id: group, user_ids: [s.realm.member.id] }, []);
    expectError(await s.api.post(s.realm.member, "/messages", { type: "stream", to: channel.name, topic: "t", content: "x" }), "You do not have permission to post in this channel.");
  });

  it("the sender's groups follow a role change (a system group's membership)", async () => {
    const user = await makeUser();
    const channel = await makeChannel([user]);
    const admins = await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", "role:administrators").executeTakeFirstOrThrow();
    await s.db.updateTable("channels").set({ can_send_message_group_id: admins.id }).where("id", "=", channel.id).execute();
    await send(channel.name, "allowed", s.realm.admin);
    expectError(await s.api.post(user, "/messages", { type: "stream", to: channel.name, topic: "t", content: "x" }), "You do not have permission to post in this channel.");
    expectSuccess(await s.api.patch(s.realm.owner, `/users/${user.id}`, { role: Role.ADMINISTRATOR }));
    await send(channel.name, "now allowed", user);
    expectSuccess(await s.api.patch(s.realm.owner, `/users/${user.id}`, { role: Role.MEMBER }));
    expectError(await s.api.post(user, "/messages", { type: "stream", to: channel.name, topic: "t", content: "x" }), "You do not have permission to post in this channel.");
  });
});

describe("the realm's linkifiers", () => {
  it("render a linkifier added since the last send, and stop rendering a removed one", async () => {
    const channel = await makeChannel([]);
    const rendered = async () => (await s.db.selectFrom("messages").select("rendered_content").where("id", "=", await send(channel.name, "see CACHE-42")).executeTakeFirstOrThrow()).rendered_content;
    expect(await rendered()).not.toContain("<a");
    const id = expectSuccess(await s.api.post(s.realm.admin, "/realm/filters", { pattern: "CACHE-(?P<n>\\d+)", url_template: "https://tracker.example.com/{n}" })).id as number;
    expect(await rendered()).toContain('href="https://tracker.example.com/42"');
    expectSuccess(await s.api.delete(s.realm.admin, `/realm/filters/${id}`));
    expect(await rendered()).not.toContain("<a");
  });
});

describe("a send whose commit group rolls back", () => {
  it("runs again and is stored and announced once when a replayable transaction behind it fails after writing", async () => {
    const channel = await makeChannel([s.realm.other]);
    const announced: number[] = [];
    const stop = s.ctx.events.subscribeAll(({ event }) => {
      if (event.type === "message") announced.push((event as unknown as { message: { id: number } }).message.id);
    });
    try {
      // The send holds the writer first; the failing transaction queues behind it, joins its
      // group without a savepoint and, failing, rolls the group back: the send runs again.
      const sending = doSendMessage(s.ctx, s.realm.realm, s.realm.member, {
        target: { kind: "channel", channel: { name: channel.name }, topic: "replayed" },
        content: "stored once",
        clientName: "test",
      });
      const failing = withTransaction(
        s.db,
        async (tx) => {
          await tx.insertInto("alert_words").values({ realm_id: s.realm.realm.id, user_id: s.realm.other.id, word: "never stored" }).execute();
          throw new Error("fails after its write");
        },
        { replayable: true },
      );
      await expect(failing).rejects.toThrow("fails after its write");
      const id = await sending;
      const stored = await s.db.selectFrom("messages").select("id").where("content", "=", "stored once").execute();
      expect(stored.map((m) => m.id)).toEqual([id]);
      expect(new Set(announced)).toEqual(new Set([id]));
      expect([...(await rowsOf(id)).keys()].sort()).toEqual([s.realm.member.id, s.realm.other.id].sort());
      expect(await s.db.selectFrom("alert_words").select("id").where("word", "=", "never stored").execute()).toEqual([]);
    } finally {
      stop();
    }
  });
});
