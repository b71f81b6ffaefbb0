/**
 * Scheduled-message rows → the API's records: the scheduled message object of GET
 * /scheduled_messages and its events (keys in upstream's order; `topic` only for channel
 * messages; `type` is `stream` or `private`), and the reminder object of GET /reminders.
 */
import type { ScheduledMessage } from "../db/schema.js";

export function toApiScheduledMessage(row: ScheduledMessage): Record<string, unknown> {
  const common = { scheduled_message_id: row.id };
  if (row.type === "stream") {
    return {
      ...common,
      to: row.channel_id,
      type: "stream",
      content: row.content,
      rendered_content: row.rendered_content,
      topic: row.topic,
      scheduled_delivery_timestamp: Number(row.scheduled_timestamp),
      failed: row.failed === 1,
    };
  }
  return {
    ...common,
    to: JSON.parse(row.to_json) as number[],
    type: "private",
    content: row.content,
    rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: Number(row.scheduled_timestamp),
    failed: row.failed === 1,
  };
}

export function toApiReminder(row: ScheduledMessage): Record<string, unknown> {
  return {
    reminder_id: row.id,
    type: "private",
    to: JSON.parse(row.to_json) as number[],
    content: row.content,
    rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: Number(row.scheduled_timestamp),
    failed: row.failed === 1,
    reminder_target_message_id: row.reminder_target_message_id,
  };
}
