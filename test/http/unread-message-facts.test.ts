/**
 * /register's unread_msgs takes each message's recipient, sender and topic from a cache
 * (src/caches/message-facts.ts). A message that moves (topic or channel), by this server
 * or by another node (its event only), shows in its new place in the next register; a
 * deleted one leaves. Each test would fail with stale facts: the message would stay in its
 * old place.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChannel } from "../support/channels.js";
import { expectSuccess } from "../support/client.js";
import { register } from "../support/events.js";
import { sendChannelMessage } from "../support/messages.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
let firstChannel: number;
let secondChannel: number;
beforeAll(async () => {
  s = await startTestServer();
  const { member, other } = s.realm;
  firstChannel = (await createChannel(s, { name: "facts one", subscribers: [member, other] })).id;
  secondChannel = (await createChannel(s, { name: "facts two", subscribers: [member, other] })).id;
});
afterAll(() => s.close());

const UNREAD = { event_types: ["message", "update_message_flags"] };
/** Where each unread channel message of `other` is: "channel id/topic" by message id. */
async function placesOfUnread(): Promise<Map<number, string>> {
  const { unread_msgs } = await register(s, s.realm.other, UNREAD);
  const places = new Map<number, string>();
  for (const g of unread_msgs.streams as Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>) {
    for (const id of g.unread_message_ids) places.set(id, `${g.stream_id}/${g.topic}`);
  }
  return places;
}
const notFromCache = () => Promise.reject(new Error("loaded, not cached"));

describe("unread messages' recipient, sender and topic from the message facts cache", () => {
  it("are cached by a register and show a move of topic or channel, or a deletion, in the next one", async () => {
    const { member } = s.realm;
    const moved = await sendChannelMessage(s, member, "facts one", "start", "to be moved");
    const kept = await sendChannelMessage(s, member, "facts one", "start", "stays");
    const deleted = await sendChannelMessage(s, member, "facts one", "start", "to be deleted");
    const before = await placesOfUnread();
    expect([before.get(moved), before.get(kept), before.get(deleted)]).toEqual([`${firstChannel}/start`, `${firstChannel}/start`, `${firstChannel}/start`]);
    // All three are cached now: a lookup needs no load.
    const cached = await s.ctx.caches.messageFacts.covering(s.realm.realm.id, [moved, kept, deleted], notFromCache);
    expect(cached.get(moved)?.[2]).toBe("start");

    expectSuccess(await s.api.patch(member, `/messages/${moved}`, { topic: "renamed", propagate_mode: "change_one", send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
    const afterTopic = await placesOfUnread();
    expect(afterTopic.get(moved)).toBe(`${firstChannel}/renamed`);
    expect(afterTopic.get(kept)).toBe(`${firstChannel}/start`);

    expectSuccess(await s.api.patch(s.realm.admin, `/messages/${moved}`, { stream_id: secondChannel, propagate_mode: "change_one", send_notification_to_old_thread: false, send_notification_to_new_thread: false }));
    expect((await placesOfUnread()).get(moved)).toBe(`${secondChannel}/renamed`);

    expectSuccess(await s.api.delete(s.realm.admin, `/messages/${deleted}`));
    const afterDeletion = await placesOfUnread();
    expect(afterDeletion.has(deleted)).toBe(false);
    expect(afterDeletion.get(kept)).toBe(`${firstChannel}/start`);
  });

  it("show another node's move, which arrives as its event only", async () => {
    const { member } = s.realm;
    const id = await sendChannelMessage(s, member, "facts one", "elsewhere", "moved on another node");
    expect((await placesOfUnread()).get(id)).toBe(`${firstChannel}/elsewhere`);
    // The database without the cache write watcher: a write another node made.
    await s.db.withoutPlugins().updateTable("messages").set({ topic: "moved elsewhere" }).where("id", "=", id).execute();
    expect((await placesOfUnread()).get(id)).toBe(`${firstChannel}/elsewhere`);
    s.ctx.events.publish(s.realm.realm.id, { type: "update_message", message_id: id, message_ids: [id], topic: "moved elsewhere" }, [member.id]);
    expect((await placesOfUnread()).get(id)).toBe(`${firstChannel}/moved elsewhere`);
  });

  it("are loaded in one call for all the messages the cache lacks", async () => {
    const { member } = s.realm;
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await sendChannelMessage(s, member, "facts two", "batch", `message ${i}`));
    const loads: number[][] = [];
    s.ctx.caches.messageFacts.flushAll();
    await s.ctx.caches.messageFacts.covering(s.realm.realm.id, ids, async (missing) => {
      loads.push(missing);
      return missing.map((id) => [id, 1, member.id, "batch"]);
    });
    expect(loads).toEqual([ids]);
    s.ctx.caches.messageFacts.flushAll();
    const places = await placesOfUnread();
    for (const id of ids) expect(places.get(id)).toBe(`${secondChannel}/batch`);
  });
});
