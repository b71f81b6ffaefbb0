/**
 * Event audience = read audience. For every kind of channel, with subscribers from before
 * and after the message, a former subscriber, a non-subscriber, a guest and a bot, each
 * event about a message (content edit, topic edit, move between channels, typing while
 * editing, deletion) must reach exactly:
 *   - only users who can GET /messages/{id} it (for deletions and lost access: could,
 *     just before), and
 *   - every such user who follows the conversation (subscribed, or holding a per-user
 *     row): upstream sends no live updates to non-subscribers who merely could browse a
 *     public channel, as for new messages.
 * In a move, "following" is following the new channel or, for users who could read the
 * message before, the old one; users who lose access get delete_message, and only they do.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { queuedEvents, register } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import { sendChannelMessage, subscribe } from "../support/messages.js";
import type { Channel, User } from "../../src/db/schema.js";

type Kind = "public" | "private-shared" | "private-protected" | "web-public";
const KINDS: Kind[] = ["public", "private-shared", "private-protected", "web-public"];

let s: TestServer;
let users: User[];
const queues = new Map<number, { id: string; last: number }>();
let n = 0;

beforeAll(async () => {
  s = await startTestServer();
  const { owner, admin, moderator, member, other, guest, bot } = s.realm;
  users = [owner, admin, moderator, member, other, guest, bot];
  for (const u of users) {
    const state = await register(s, u, { event_types: ["update_message", "delete_message", "typing_edit_message"] });
    queues.set(u.id, { id: state.queue_id, last: state.last_event_id });
  }
});
afterAll(() => s.close());

async function makeChannel(kind: Kind, subscribers: User[]): Promise<Channel> {
  const channel = await createChannel(s, {
    name: `${kind}-${++n}`,
    invite_only: kind.startsWith("private"),
    history_public_to_subscribers: kind !== "private-protected",
    subscribers,
  });
  if (kind === "web-public") await s.db.updateTable("channels").set({ is_web_public: 1 }).where("id", "=", channel.id).execute();
  return channel;
}

/**
 * A channel of the kind with a message from `member`: member, other, guest and bot
 * subscribed before it; moderator subscribed before and left after; admin joined after;
 * the owner never subscribed.
 */
async function scenario(kind: Kind): Promise<{ channel: Channel; messageId: number }> {
  const { admin, moderator, member, other, guest, bot } = s.realm;
  const channel = await makeChannel(kind, [member, other, guest, bot, moderator]);
  const messageId = await sendChannelMessage(s, member, channel.name, "audit", "original text");
  await subscribe(s, channel.recipient_id!, [admin]);
  await s.db.updateTable("subscriptions").set({ active: 0 }).where("user_id", "=", moderator.id).where("recipient_id", "=", channel.recipient_id!).execute();
  return { channel, messageId };
}

async function readers(messageId: number): Promise<Set<number>> {
  const out = new Set<number>();
  for (const u of users) if ((await s.api.get(u, `/messages/${messageId}`)).statusCode === 200) out.add(u.id);
  return out;
}

/** Who follows the conversation: active subscribers of the channel and holders of a row for the message. */
async function followers(channel: Channel, messageId: number): Promise<Set<number>> {
  const subs = await s.db.selectFrom("subscriptions").select("user_id").where("recipient_id", "=", channel.recipient_id!).where("active", "=", 1).execute();
  const rows = await s.db.selectFrom("user_messages").select("user_id").where("message_id", "=", messageId).execute();
  return new Set([...subs, ...rows].map((r) => r.user_id));
}

/** Events about the message each user's queue received since the last call, by type. */
async function drain(messageId: number): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  for (const u of users) {
    const q = queues.get(u.id)!;
    const events = await queuedEvents(s, u, q.id, q.last);
    if (events.length > 0) q.last = events[events.length - 1].id;
    const about = events.filter((e) => e.message_id === messageId || (Array.isArray(e.message_ids) && e.message_ids.includes(messageId)));
    if (about.length > 0) out.set(u.id, about.map((e) => e.type));
  }
  return out;
}

const who = (ids: Iterable<number>) => [...ids].map((id) => users.find((u) => u.id === id)!.full_name).sort();

/** Asserts receivers of `type` = readers ∩ followers. */
function expectAudience(received: Map<number, string[]>, type: string, canRead: Set<number>, following: Set<number>): void {
  const got = [...received].filter(([, types]) => types.includes(type)).map(([id]) => id);
  const expected = [...canRead].filter((id) => following.has(id));
  expect(who(got)).toEqual(who(expected));
}

describe("event audience = read audience", () => {
  for (const kind of KINDS) {
    describe(`${kind} channel`, () => {
      it("a content edit reaches exactly the readers who follow the conversation", async () => {
        const { channel, messageId } = await scenario(kind);
        await drain(messageId);
        expectSuccess(await s.api.patch(s.realm.member, `/messages/${messageId}`, { content: "edited text" }));
        const received = await drain(messageId);
        expectAudience(received, "update_message", await readers(messageId), await followers(channel, messageId));
      });

      it("a topic edit reaches exactly the readers who follow the conversation", async () => {
        const { channel, messageId } = await scenario(kind);
        await drain(messageId);
        expectSuccess(await s.api.patch(s.realm.member, `/messages/${messageId}`, { topic: "renamed", propagate_mode: "change_all" }));
        const received = await drain(messageId);
        expectAudience(received, "update_message", await readers(messageId), await followers(channel, messageId));
      });

      it("typing while editing reaches exactly the readers who follow the conversation", async () => {
        const { channel, messageId } = await scenario(kind);
        await drain(messageId);
        expectSuccess(await s.api.post(s.realm.member, `/messages/${messageId}/typing`, { op: "start" }));
        const received = await drain(messageId);
        expectAudience(received, "typing_edit_message", await readers(messageId), await followers(channel, messageId));
      });

      it("a deletion reaches exactly the users who could read the message", async () => {
        const { channel, messageId } = await scenario(kind);
        const canRead = await readers(messageId);
        const following = await followers(channel, messageId);
        await drain(messageId);
        expectSuccess(await s.api.delete(s.realm.member, `/messages/${messageId}`));
        expectAudience(await drain(messageId), "delete_message", canRead, following);
      });

      for (const target of KINDS) {
        it(`a move to a ${target} channel: update_message to readers after, delete_message to those who lost access`, async () => {
          const { owner, member, guest } = s.realm;
          const { channel, messageId } = await scenario(kind);
          const destination = await makeChannel(target, [member, owner, guest]);
          const before = await readers(messageId);
          const followingBefore = await followers(channel, messageId);
          await drain(messageId);
          expectSuccess(await s.api.patch(member, `/messages/${messageId}`, { stream_id: destination.id }));
          const received = await drain(messageId);
          const after = await readers(messageId);
          // Followers of the new channel, and earlier readers who followed the old one.
          const following = await followers(destination, messageId);
          for (const id of followingBefore) if (before.has(id)) following.add(id);
          expectAudience(received, "update_message", after, following);
          const lost = new Set([...before].filter((id) => !after.has(id)));
          expectAudience(received, "delete_message", lost, followingBefore);
        });
      }
    });
  }
});
