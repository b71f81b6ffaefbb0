/** scheduled_messages and reminders events keep /register state current, for the owner only. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { queuedEvents, register, verifyAction } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import { sendChannelMessage } from "../support/messages.js";
import type { Channel } from "../../src/db/schema.js";
import type { ManualClock } from "../../src/jobs/clock.js";
import type { DeliveryJob } from "../../src/jobs/scheduled-delivery.js";
import { startManualDelivery } from "../support/delivery.js";

let s: TestServer;
let room: Channel;
let clock: ManualClock;
let job: DeliveryJob;
const T0 = 2_200_000_000;
beforeAll(async () => {
  s = await startTestServer();
  ({ clock, job } = await startManualDelivery(s, T0));
  room = await createChannel(s, { name: "sched-events", subscribers: [s.realm.member, s.realm.other] });
});
afterAll(async () => {
  await job.stop();
  await s.close();
});

const REG = { event_types: ["scheduled_messages", "reminders"] };

describe("scheduled_messages events", () => {
  it("add, update, remove and delivery keep the state equal to a fresh register", async () => {
    const { member, other, admin } = s.realm;
    const adminQueue = (await register(s, admin, REG)).queue_id;
    let id = 0;
    const added = await verifyAction(
      s,
      member,
      async () => {
        id = expectSuccess(await s.api.post(member, "/scheduled_messages", { type: "stream", to: String(room.id), topic: "t", content: "a", scheduled_delivery_timestamp: T0 + 100 })).scheduled_message_id;
        await s.api.post(member, "/scheduled_messages", { type: "direct", to: JSON.stringify([other.id]), content: "b", scheduled_delivery_timestamp: T0 + 50 });
      },
      REG,
    );
    expect(added[0]).toEqual({
      type: "scheduled_messages",
      op: "add",
      scheduled_messages: [{ scheduled_message_id: id, to: room.id, type: "stream", content: "a", rendered_content: "<p>a</p>", topic: "t", scheduled_delivery_timestamp: T0 + 100, failed: false }],
      id: 0,
    });
    const updated = await verifyAction(s, member, async () => expectSuccess(await s.api.patch(member, `/scheduled_messages/${id}`, { content: "a2", scheduled_delivery_timestamp: T0 + 10 })), REG);
    expect(updated).toEqual([
      {
        type: "scheduled_messages",
        op: "update",
        scheduled_message: { scheduled_message_id: id, to: room.id, type: "stream", content: "a2", rendered_content: "<p>a2</p>", topic: "t", scheduled_delivery_timestamp: T0 + 10, failed: false },
        id: 0,
      },
    ]);
    const delivered = await verifyAction(
      s,
      member,
      async () => {
        clock.set((T0 + 10) * 1000);
        await job.idle();
      },
      REG,
    );
    expect(delivered).toEqual([{ type: "scheduled_messages", op: "remove", scheduled_message_id: id, id: 0 }]);
    const state = await register(s, member, REG);
    const removed = await verifyAction(s, member, async () => expectSuccess(await s.api.delete(member, `/scheduled_messages/${state.scheduled_messages[0].scheduled_message_id}`)), REG);
    expect(removed).toMatchObject([{ type: "scheduled_messages", op: "remove" }]);
    expect(await queuedEvents(s, admin, adminQueue)).toEqual([]);
  });

  it("a failed delivery updates the state to failed", async () => {
    const { member } = s.realm;
    const doomed = await createChannel(s, { name: "sched-doomed", subscribers: [member] });
    await s.api.post(member, "/scheduled_messages", { type: "stream", to: String(doomed.id), topic: "t", content: "x", scheduled_delivery_timestamp: T0 + 200 });
    await s.db.updateTable("channels").set({ deactivated: 1 }).where("id", "=", doomed.id).execute();
    const events = await verifyAction(
      s,
      member,
      async () => {
        clock.set((T0 + 200) * 1000);
        await job.idle();
      },
      REG,
    );
    expect(events).toMatchObject([{ type: "scheduled_messages", op: "update", scheduled_message: { failed: true } }]);
  });
});

describe("reminders events", () => {
  it("add, delete and delivery keep the state equal to a fresh register", async () => {
    const { member, other } = s.realm;
    const m = await sendChannelMessage(s, other, "sched-events", "t", "remember me");
    let id = 0;
    const added = await verifyAction(
      s,
      member,
      async () => {
        id = expectSuccess(await s.api.post(member, "/reminders", { message_id: m, scheduled_delivery_timestamp: T0 + 1000 })).reminder_id;
        await s.api.post(member, "/reminders", { message_id: m, scheduled_delivery_timestamp: T0 + 900 });
      },
      REG,
    );
    expect(added[0]).toMatchObject({ type: "reminders", op: "add", reminders: [{ reminder_id: id, type: "private", to: [member.id], reminder_target_message_id: m, failed: false }] });
    const removed = await verifyAction(s, member, async () => expectSuccess(await s.api.delete(member, `/reminders/${id}`)), REG);
    expect(removed).toEqual([{ type: "reminders", op: "remove", reminder_id: id, id: 0 }]);
    const delivered = await verifyAction(
      s,
      member,
      async () => {
        clock.set((T0 + 900) * 1000);
        await job.idle();
      },
      REG,
    );
    expect(delivered).toMatchObject([{ type: "reminders", op: "remove" }]);
  });
});
