/** Test helpers: send messages through POST /messages and return their ids. */
import type { User } from "../../src/db/schema.js";
import { expectSuccess } from "./client.js";
import type { TestServer } from "./server.js";
import { createChannel } from "./channels.js";

export async function sendChannelMessage(s: TestServer, sender: User, channelName: string, topic: string, content: string): Promise<number> {
  const res = await s.api.post(sender, "/messages", { type: "stream", to: channelName, topic, content });
  return expectSuccess(res).id as number;
}

export async function sendDirectMessage(s: TestServer, sender: User, recipients: User[], content: string): Promise<number> {
  const res = await s.api.post(sender, "/messages", { type: "direct", to: recipients.map((u) => u.id), content });
  return expectSuccess(res).id as number;
}

/** Creates a channel (through the channels engineer's helper) and returns the fields message tests use. */
export async function makeChannel(
  s: TestServer,
  name: string,
  opts: { subscribers: User[]; invite_only?: boolean; history_public_to_subscribers?: boolean; is_web_public?: boolean },
): Promise<{ id: number; recipient_id: number; name: string }> {
  // Private channels here share history with subscribers unless a test says otherwise.
  const channel = await createChannel(s, { name, ...opts, history_public_to_subscribers: opts.history_public_to_subscribers ?? true });
  return { id: channel.id, recipient_id: channel.recipient_id!, name: channel.name };
}

export async function subscribe(s: TestServer, recipientId: number, users: User[]): Promise<void> {
  if (users.length === 0) return;
  await s.db
    .insertInto("subscriptions")
    .values(users.map((u) => ({ realm_id: u.realm_id, user_id: u.id, recipient_id: recipientId })))
    .execute();
}

/** Counts of rows that a failed send must not create. */
export async function messageCounts(s: TestServer): Promise<{ messages: number; user_messages: number }> {
  const m = await s.db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  const um = await s.db.selectFrom("user_messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return { messages: Number(m.n), user_messages: Number(um.n) };
}
