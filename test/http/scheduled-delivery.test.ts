/**
 * The delivery job (src/jobs/scheduled-delivery.ts) on a manual clock: on-time delivery
 * through the send path, re-arming for nearer times, start-up delivery, failures with the
 * notification bot's notice, the late cutoff, and exactly-once under concurrent claims.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { queuedEvents, register } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import type { Channel, User } from "../../src/db/schema.js";
import type { ManualClock } from "../../src/jobs/clock.js";
import { DeliveryJob } from "../../src/jobs/scheduled-delivery.js";
import { startManualDelivery } from "../support/delivery.js";
import { deliverScheduled } from "../../src/actions/scheduled-delivery.js";

let s: TestServer;
let room: Channel;
let clock: ManualClock;
let job: DeliveryJob;
const T0 = 2_000_000_000;

beforeAll(async () => {
  s = await startTestServer();
  room = await createChannel(s, { name: "deliveries", subscribers: [s.realm.member, s.realm.other] });
});
afterAll(() => s.close());
beforeEach(async () => {
  ({ clock, job } = await startManualDelivery(s, T0));
});
afterEach(async () => {
  await job.stop();
  // Leave no pending rows for the next test's start-up pass.
  await s.db.deleteFrom("scheduled_messages").execute();
});

const schedule = async (user: User, params: Record<string, unknown>) =>
  expectSuccess(await s.api.post(user, "/scheduled_messages", { content: "later", ...params })).scheduled_message_id as number;
const row = (id: number) => s.db.selectFrom("scheduled_messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const message = (id: number) => s.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const flagsOf = async (userId: number, messageId: number) =>
  (await s.db.selectFrom("user_messages").select("flags").where("user_id", "=", userId).where("message_id", "=", messageId).executeTakeFirst())?.flags;
async function moveTo(seconds: number) {
  clock.set(seconds * 1000);
  await job.idle();
}
const botId = () => s.realm.realm.notification_bot_id;

describe("on-time delivery", () => {
  it("sends through the send path at the time set, as its sender, and records the message", async () => {
    const { member, other } = s.realm;
    const qMember = (await register(s, member, { event_types: ["scheduled_messages", "message"] })).queue_id;
    const qOther = (await register(s, other, { event_types: ["message"] })).queue_id;
    const id = await schedule(member, { type: "stream", to: String(room.id), topic: "news", content: "hi @**Otto Other**", scheduled_delivery_timestamp: T0 + 60 });
    expect(clock.nextTimerAt()).toBe((T0 + 60) * 1000);
    await moveTo(T0 + 59);
    expect((await row(id)).delivered).toBe(0);
    await moveTo(T0 + 60);
    const r = await row(id);
    expect(r).toMatchObject({ delivered: 1, failed: 0 });
    const sent = await message(r.delivered_message_id!);
    expect(sent).toMatchObject({ sender_id: member.id, channel_id: room.id, topic: "news", content: "hi @**Otto Other**", date_sent: T0 + 60 });
    expect(sent.rendered_content).toContain('class="user-mention"');
    // Mention flag for the mentioned user; read for the sender (read_by_sender default).
    expect((await flagsOf(other.id, sent.id))! & 8).toBe(8);
    expect((await flagsOf(member.id, sent.id))! & 1).toBe(1);
    const memberEvents = await queuedEvents(s, member, qMember);
    expect(memberEvents.map((e) => e.type)).toEqual(["scheduled_messages", "message", "scheduled_messages"]);
    expect(memberEvents[2]).toEqual({ type: "scheduled_messages", op: "remove", scheduled_message_id: id, id: 2 });
    expect((await queuedEvents(s, other, qOther)).map((e) => e.message.id)).toEqual([sent.id]);
    expect(expectSuccess(await s.api.get(member, "/scheduled_messages")).scheduled_messages).toEqual([]);
    // Nothing left: the job sleeps without a timer.
    expect(clock.nextTimerAt()).toBeNull();
  });

  it("re-arms for a nearer time and sends a direct message to oneself unread", async () => {
    const { member } = s.realm;
    const far = await schedule(member, { type: "direct", to: JSON.stringify([member.id]), content: "far", scheduled_delivery_timestamp: T0 + 3600 });
    expect(clock.nextTimerAt()).toBe((T0 + 3600) * 1000);
    const near = await schedule(member, { type: "direct", to: JSON.stringify([member.id]), content: "near", scheduled_delivery_timestamp: T0 + 10 });
    expect(clock.nextTimerAt()).toBe((T0 + 10) * 1000);
    await moveTo(T0 + 10);
    expect((await row(near)).delivered).toBe(1);
    expect((await row(far)).delivered).toBe(0);
    expect((await flagsOf(member.id, (await row(near)).delivered_message_id!))! & 1).toBe(0);
    expect(clock.nextTimerAt()).toBe((T0 + 3600) * 1000);
    // Editing the time re-arms too.
    expectSuccess(await s.api.patch(member, `/scheduled_messages/${far}`, { scheduled_delivery_timestamp: T0 + 20 }));
    expect(clock.nextTimerAt()).toBe((T0 + 20) * 1000);
    await moveTo(T0 + 20);
    expect((await row(far)).delivered).toBe(1);
  });

  it("delivers everything already due when it starts", async () => {
    const { member, other } = s.realm;
    await job.stop();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await schedule(member, { type: "direct", to: JSON.stringify([other.id]), content: `m${i}`, scheduled_delivery_timestamp: T0 + 5 + i }));
    clock.set((T0 + 100) * 1000);
    job = new DeliveryJob(s.ctx, clock);
    await job.start();
    for (const id of ids) expect((await row(id)).delivered).toBe(1);
    expect(job.counts).toEqual({ delivered: 3, failed: 0, skipped: 0 });
  });
});

describe("failures", () => {
  it("an archived channel: the message turns failed, keeps its content, and the bot tells the sender once", async () => {
    const { member } = s.realm;
    const doomed = await createChannel(s, { name: "doomed", subscribers: [member] });
    const q = (await register(s, member, { event_types: ["scheduled_messages", "message"] })).queue_id;
    const id = await schedule(member, { type: "stream", to: String(doomed.id), topic: "t", content: "kept", scheduled_delivery_timestamp: T0 + 30 });
    await s.db.updateTable("channels").set({ deactivated: 1 }).where("id", "=", doomed.id).execute();
    await moveTo(T0 + 30);
    expect(await row(id)).toMatchObject({ delivered: 0, failed: 1, content: "kept", failure_message: "Not authorized to send to channel 'doomed'" });
    const events = await queuedEvents(s, member, q);
    const update = events.find((e) => e.type === "scheduled_messages" && e.op === "update");
    expect(update?.scheduled_message).toMatchObject({ scheduled_message_id: id, failed: true, content: "kept" });
    const notices = events.filter((e) => e.type === "message");
    expect(notices).toHaveLength(1);
    expect(notices[0]!.message.sender_id).toBe(botId());
    const notice = await message(notices[0]!.message.id);
    expect(notice.content).toBe(
      "The message you scheduled for <time:2033-05-18 03:33:50+00:00>  was not sent because of the following error:\n\n> Not authorized to send to channel 'doomed'\n\n[View scheduled messages](#scheduled)",
    );
    // Failed rows are listed, and wait for a new delivery time.
    expect(expectSuccess(await s.api.get(member, "/scheduled_messages")).scheduled_messages[0]).toMatchObject({ scheduled_message_id: id, failed: true });
    expect(clock.nextTimerAt()).toBeNull();
  });

  it("a recipient gone, or a private channel the sender left: failed with the send path's message", async () => {
    const { member, owner } = s.realm;
    const gone = await s.db.selectFrom("users").selectAll().where("id", "=", s.realm.guest.id).executeTakeFirstOrThrow();
    const hideout = await createChannel(s, { name: "hideout", invite_only: true, subscribers: [member, owner] });
    const toGone = await schedule(member, { type: "direct", to: JSON.stringify([gone.id]), scheduled_delivery_timestamp: T0 + 40 });
    const toHideout = await schedule(member, { type: "stream", to: String(hideout.id), topic: "t", scheduled_delivery_timestamp: T0 + 40 });
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", gone.id).execute();
    await s.db.deleteFrom("subscriptions").where("user_id", "=", member.id).where("recipient_id", "=", hideout.recipient_id!).execute();
    try {
      await moveTo(T0 + 40);
    } finally {
      await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", gone.id).execute();
    }
    expect(await row(toGone)).toMatchObject({ failed: 1, failure_message: `'${gone.delivery_email}' is no longer using Parley.` });
    expect(await row(toHideout)).toMatchObject({ failed: 1, failure_message: "Not authorized to send to channel 'hideout'" });
    const notices = await s.db.selectFrom("messages").select("content").where("sender_id", "=", botId()!).where("content", "like", "The message you scheduled%").execute();
    expect(notices.filter((n) => n.content.includes("hideout"))).toHaveLength(1);
  });

  it("fails a message more than ten minutes late", async () => {
    const { member, other } = s.realm;
    await job.stop();
    const id = await schedule(member, { type: "direct", to: JSON.stringify([other.id]), scheduled_delivery_timestamp: T0 + 10 });
    clock.set((T0 + 10 + 601) * 1000);
    job = new DeliveryJob(s.ctx, clock);
    await job.start();
    expect(await row(id)).toMatchObject({ delivered: 0, failed: 1, failure_message: "Message could not be sent at the scheduled time." });
  });

  it("a deactivated sender: failed without a notice", async () => {
    const { moderator, other } = s.realm;
    const id = await schedule(moderator, { type: "direct", to: JSON.stringify([other.id]), scheduled_delivery_timestamp: T0 + 10 });
    const before = await s.db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", moderator.id).execute();
    try {
      await moveTo(T0 + 10);
    } finally {
      await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", moderator.id).execute();
    }
    expect(await row(id)).toMatchObject({ failed: 1, failure_message: "Account is deactivated" });
    const after = await s.db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describe("exactly once", () => {
  it("concurrent deliveries of one row send it once", async () => {
    const { member, other } = s.realm;
    await job.stop();
    const id = await schedule(member, { type: "direct", to: JSON.stringify([other.id]), content: "once", scheduled_delivery_timestamp: T0 + 1 });
    clock.set((T0 + 2) * 1000);
    const outcomes = await Promise.all([deliverScheduled(s.ctx, id), deliverScheduled(s.ctx, id), deliverScheduled(s.ctx, id)]);
    expect(outcomes.sort()).toEqual(["delivered", "skipped", "skipped"]);
    const sent = await s.db.selectFrom("messages").select("id").where("content", "=", "once").execute();
    expect(sent).toHaveLength(1);
    expect((await row(id)).delivered_message_id).toBe(sent[0]!.id);
  });

  it("an edit between the check and the claim is not overwritten by stale content", async () => {
    const { member, other } = s.realm;
    await job.stop();
    const id = await schedule(member, { type: "direct", to: JSON.stringify([other.id]), content: "old", scheduled_delivery_timestamp: T0 + 1 });
    clock.set((T0 + 2) * 1000);
    const delivery = deliverScheduled(s.ctx, id);
    await s.db.updateTable("scheduled_messages").set({ content: "new" }).where("id", "=", id).execute();
    const outcome = await delivery;
    if (outcome === "skipped") expect(await deliverScheduled(s.ctx, id)).toBe("delivered");
    // Either the edit landed before the delivery read or claimed the row (then "new" is sent,
    // after a skip when it came between the read and the claim), or after the claim ("old").
    const sent = await message((await row(id)).delivered_message_id!);
    if (outcome === "skipped") expect(sent.content).toBe("new");
    else expect(["old", "new"]).toContain(sent.content);
    expect(await s.db.selectFrom("messages").select("id").where("content", "in", ["old", "new"]).execute()).toHaveLength(1);
  });
});
