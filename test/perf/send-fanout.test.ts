/**
 * Sending to a big channel: the same number of statements for 3 recipients as for 1,300
 * (their rows go in one INSERT however many: the old INSERT … VALUES needed a statement per 1,250), and every subscriber's waiting queue gets
 * the message, each poll's body spliced from the message serialized once per kind of client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Role } from "../../src/lib/roles.js";
import { generateApiKey } from "../../src/lib/secrets.js";
import type { User } from "../../src/db/schema.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import { queueOptions } from "../support/queue-options.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** Users inserted in bulk through the database layer (the API would take minutes). */
async function bulkUsers(n: number): Promise<User[]> {
  const now = Math.floor(Date.now() / 1000);
  const rows = Array.from({ length: n }, (_, i) => ({
    realm_id: s.realm.realm.id,
    delivery_email: `fanout${i}@example.com`,
    full_name: `Fan ${i}`,
    role: Role.MEMBER,
    api_key: generateApiKey(),
    date_joined: now,
  }));
  const users: User[] = [];
  for (let i = 0; i < rows.length; i += 200) {
    users.push(...(await s.db.insertInto("users").values(rows.slice(i, i + 200)).returningAll().execute()));
  }
  return users;
}

describe("sending to 1,300 subscribers", () => {
  it("runs as many statements as sending to 3, and stores every per-user row", async () => {
    const { member, other, admin } = s.realm;
    const many = await bulkUsers(1300);
    await createChannel(s, { name: "fan small", subscribers: [member, other, admin] });
    await createChannel(s, { name: "fan large", subscribers: [member, other, admin, ...many] });
    const send = (to: string) => () =>
      s.api.post(member, "/messages", { type: "stream", to, topic: "t", content: "hello @**Otto Other**, see https://example.com :smile:" }).then(expectSuccess);
    await send("fan small")(); // warm: the first message of a channel also sets first_message_id
    await send("fan large")();
    const small = await s.countQueries(send("fan small"));
    const large = await s.countQueries(send("fan large"));
    expect(large).toBe(small);
    const { id } = (await send("fan large")()) as { id: number };
    const rows = await s.db.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", id).execute();
    expect(rows.length).toBe(1303);
    expect(new Set(rows.map((r) => r.user_id))).toEqual(new Set([member, other, admin, ...many].map((u) => u.id)));
  });

  it("answers every subscriber's waiting poll with the message, each queue with its own event id", async () => {
    const users = await s.db.selectFrom("users").selectAll().where("delivery_email", "like", "fanout%").limit(300).execute();
    const queues = users.map((u, i) =>
      // Two kinds of clients: each gets the content in its own form.
      s.ctx.eventQueues.allocate(queueOptions(u.id, u.realm_id, { eventTypes: ["message"], applyMarkdown: i % 2 === 0 })),
    );
    // A few events already queued, so the ids differ from queue to queue.
    queues.forEach((q, i) => {
      for (let k = 0; k < i % 3; k++) q.push({ type: "heartbeat" });
    });
    const polls = queues.map((q) => s.ctx.eventQueues.poll({ userId: q.opts.userId, queueId: q.id, lastEventId: q.lastEventId, dontBlock: false }));
    const { id } = (await s.api.post(s.realm.member, "/messages", { type: "stream", to: "fan large", topic: "t", content: "**bold**" }).then(expectSuccess)) as { id: number };
    const answers = await Promise.all(polls);
    // Two kinds of clients share two serialized events; each body still carries its queue's own id.
    answers.forEach((polled) => expect(polled.json().toString()).toBe(`"events":${JSON.stringify(polled.events())}`));
    answers.map((polled) => polled.events()).forEach((events, i) => {
      expect(events).toHaveLength(1);
      const e = events[0] as unknown as { id: number; message: { id: number; content: string } };
      expect(e.id).toBe(i % 3);
      expect(e.message.id).toBe(id);
      expect(e.message.content).toBe(i % 2 === 0 ? "<p><strong>bold</strong></p>" : "**bold**");
    });
  });
});
