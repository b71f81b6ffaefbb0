/** Reminders (spec 4.19): create, list, delete, and delivery by the notification bot in upstream's format. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { queuedEvents, register } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import { sendChannelMessage, sendDirectMessage } from "../support/messages.js";
import type { Channel, User } from "../../src/db/schema.js";
import type { ManualClock } from "../../src/jobs/clock.js";
import type { DeliveryJob } from "../../src/jobs/scheduled-delivery.js";
import { startManualDelivery } from "../support/delivery.js";
import { realmUrl } from "../../src/lib/realm-host.js";
import { MAX_REMINDER_NOTE_LENGTH } from "../../src/lib/reminders.js";

let s: TestServer;
let room: Channel;
let secret: Channel;
let clock: ManualClock;
let job: DeliveryJob;
let url: string;
const T0 = 2_100_000_000;
beforeAll(async () => {
  s = await startTestServer();
  ({ clock, job } = await startManualDelivery(s, T0));
  room = await createChannel(s, { name: "reminded", subscribers: [s.realm.member, s.realm.other] });
  secret = await createChannel(s, { name: "secret-reminded", invite_only: true, subscribers: [s.realm.admin] });
  url = realmUrl(s.realm.realm.string_id, s.ctx.config.externalHost);
});
afterAll(async () => {
  await job.stop();
  await s.close();
});

const remind = async (user: User, params: Record<string, unknown>) =>
  expectSuccess(await s.api.post(user, "/reminders", { scheduled_delivery_timestamp: T0 + 600, ...params })).reminder_id as number;
const rows = (user: User) => s.db.selectFrom("scheduled_messages").selectAll().where("sender_id", "=", user.id).orderBy("id").execute();
const mention = (u: User) => `@_**${u.full_name}|${u.id}**`;

describe("POST /reminders", () => {
  it("stores a reminder with upstream's text, for channel and direct messages", async () => {
    const { member, other } = s.realm;
    const m1 = await sendChannelMessage(s, other, "reminded", "news", "hello world");
    const m2 = await sendDirectMessage(s, other, [member], "psst");
    const r1 = await remind(member, { message_id: m1, note: "  read this  \n" });
    const r2 = await remind(member, { message_id: m2, scheduled_delivery_timestamp: T0 + 300 });
    const list = expectSuccess(await s.api.get(member, "/reminders")).reminders;
    const channelText =
      `You requested a reminder for #**reminded>news@${m1}**. Note:\n >   read this\n\n` +
      `${mention(other)} [said](${url}/#narrow/channel/${room.id}-reminded/topic/news/near/${m1}):\n` +
      "```quote\nhello world\n```";
    const ids = [member.id, other.id].sort((a, b) => a - b).join(",");
    const directText = `You requested a reminder for the following direct message.\n\n${mention(other)} [said](${url}/#narrow/dm/${ids}/near/${m2}):\n` + "```quote\npsst\n```";
    expect(list).toEqual([
      { reminder_id: r2, type: "private", to: [member.id], content: directText, rendered_content: expect.any(String), scheduled_delivery_timestamp: T0 + 300, failed: false, reminder_target_message_id: m2 },
      { reminder_id: r1, type: "private", to: [member.id], content: channelText, rendered_content: expect.any(String), scheduled_delivery_timestamp: T0 + 600, failed: false, reminder_target_message_id: m1 },
    ]);
    expect(list[0].rendered_content).toContain("<blockquote>");
    expect((await rows(member)).map((r) => r.reminder_note)).toEqual(["  read this", null]);
    expect(expectSuccess(await s.api.get(other, "/reminders")).reminders).toEqual([]);
  });

  it("checks the parameters, the time, the message and the note in upstream's order", async () => {
    const { member, admin } = s.realm;
    const m = await sendChannelMessage(s, admin, "secret-reminded", "t", "hidden");
    const visible = await sendChannelMessage(s, member, "reminded", "t", "seen");
    const before = await rows(member);
    expectError(await s.api.post(member, "/reminders", { scheduled_delivery_timestamp: T0 + 60 }), "Missing 'message_id' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(member, "/reminders", { message_id: visible }), "Missing 'scheduled_delivery_timestamp' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(member, "/reminders", { message_id: "x", scheduled_delivery_timestamp: T0 + 60 }), "message_id is not valid JSON");
    expectError(await s.api.post(member, "/reminders", { message_id: m, scheduled_delivery_timestamp: T0 }), "Scheduled delivery time must be in the future.");
    expectError(await s.api.post(member, "/reminders", { message_id: m, scheduled_delivery_timestamp: T0 + 60 }), "Invalid message(s)");
    expectError(await s.api.post(member, "/reminders", { message_id: 99999999, scheduled_delivery_timestamp: T0 + 60 }), "Invalid message(s)");
    expectError(
      await s.api.post(member, "/reminders", { message_id: visible, scheduled_delivery_timestamp: T0 + 60, note: "n".repeat(MAX_REMINDER_NOTE_LENGTH + 1) }),
      `Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`,
    );
    expectError(await s.api.post(s.other.member, "/reminders", { message_id: visible, scheduled_delivery_timestamp: T0 + 60 }), "Invalid message(s)");
    expect(await rows(member)).toEqual(before);
  });
});

describe("DELETE /reminders/{id}", () => {
  it("deletes only the user's own reminder", async () => {
    const { member, other } = s.realm;
    const m = await sendChannelMessage(s, member, "reminded", "t", "x");
    const id = await remind(other, { message_id: m, scheduled_delivery_timestamp: T0 + 5000 });
    expectError(await s.api.delete(member, `/reminders/${id}`), "Reminder does not exist", { status: 404 });
    expectError(await s.api.delete(other, "/reminders/99999999"), "Reminder does not exist", { status: 404 });
    // A scheduled message is no reminder.
    const sm = expectSuccess(await s.api.post(other, "/scheduled_messages", { type: "direct", to: JSON.stringify([member.id]), content: "c", scheduled_delivery_timestamp: T0 + 5000 }));
    expectError(await s.api.delete(other, `/reminders/${sm.scheduled_message_id}`), "Reminder does not exist", { status: 404 });
    expect((await rows(other)).map((r) => r.id)).toContain(id);
    expectSuccess(await s.api.delete(other, `/reminders/${id}`));
    expect((await rows(other)).map((r) => r.id)).not.toContain(id);
  });
});

describe("delivery", () => {
  it("the notification bot sends the reminder at the time set, from the message as it is then", async () => {
    const { member, other } = s.realm;
    const m = await sendChannelMessage(s, other, "reminded", "later", "draft text");
    const id = await remind(member, { message_id: m, scheduled_delivery_timestamp: T0 + 10_000, note: "go" });
    const q = (await register(s, member, { event_types: ["reminders", "message"] })).queue_id;
    await s.db.updateTable("messages").set({ content: "edited text" }).where("id", "=", m).execute();
    clock.set((T0 + 10_000) * 1000);
    await job.idle();
    const row = await s.db.selectFrom("scheduled_messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ delivered: 1, failed: 0 });
    const sent = await s.db.selectFrom("messages").selectAll().where("id", "=", row.delivered_message_id!).executeTakeFirstOrThrow();
    expect(sent.sender_id).toBe(s.realm.realm.notification_bot_id);
    expect(sent.content).toBe(
      `You requested a reminder for #**reminded>later@${m}**. Note:\n > go\n\n${mention(other)} [said](${url}/#narrow/channel/${room.id}-reminded/topic/later/near/${m}):\n` +
        "```quote\nedited text\n```",
    );
    // A direct message to the user, unread.
    const flags = await s.db.selectFrom("user_messages").select("flags").where("user_id", "=", member.id).where("message_id", "=", sent.id).executeTakeFirstOrThrow();
    expect(flags.flags & 1).toBe(0);
    // The earlier tests' reminders came due too: each sends one message, then its remove event.
    const events = await queuedEvents(s, member, q);
    expect(events.filter((e) => e.type === "message" && e.message.id === sent.id)).toHaveLength(1);
    const removes = events.filter((e) => e.type === "reminders");
    expect(removes.filter((e) => e.reminder_id === id)).toEqual([{ type: "reminders", op: "remove", reminder_id: id, id: expect.any(Number) }]);
    expect(removes).toHaveLength(events.filter((e) => e.type === "message").length);
    expect(expectSuccess(await s.api.get(member, "/reminders")).reminders).toEqual([]);
  });

  it("uses the stored text when the message is out of reach", async () => {
    const { admin } = s.realm;
    const m = await sendChannelMessage(s, admin, "secret-reminded", "t", "classified");
    const id = await remind(admin, { message_id: m, scheduled_delivery_timestamp: T0 + 20_000 });
    const stored = (await s.db.selectFrom("scheduled_messages").select("content").where("id", "=", id).executeTakeFirstOrThrow()).content;
    await s.db.deleteFrom("subscriptions").where("user_id", "=", admin.id).where("recipient_id", "=", secret.recipient_id!).execute();
    clock.set((T0 + 20_000) * 1000);
    await job.idle();
    const row = await s.db.selectFrom("scheduled_messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.delivered).toBe(1);
    const sent = await s.db.selectFrom("messages").select("content").where("id", "=", row.delivered_message_id!).executeTakeFirstOrThrow();
    expect(sent.content).toBe(stored);
  });
});
