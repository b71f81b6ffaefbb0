/** Scheduled-message rules that need no database: `to` parsing, type names, delivery times. */
import { ApiError } from "../errors.js";

/** Upstream's late cutoff: a message more than this late fails instead of being sent. */
export const SCHEDULED_MESSAGE_LATE_CUTOFF_SECONDS = 10 * 60;

export const FUTURE_TIME_REQUIRED = "Scheduled delivery time must be in the future.";
export const SCHEDULED_MESSAGE_NOT_FOUND = "Scheduled message does not exist";
export const REMINDER_NOT_FOUND = "Reminder does not exist";

/** `stream`/`channel` → "stream"; `private`/`direct` → "private" (the names stored and reported). */
export function storedType(apiType: string): "stream" | "private" {
  return apiType === "stream" || apiType === "channel" ? "stream" : "private";
}

/** Upstream extract_stream_id: `to` must be an integer written as text. */
export function extractChannelId(to: string): number {
  const text = to.trim();
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new ApiError("Invalid data type for channel ID");
  return Number(text);
}

/** Upstream extract_direct_message_recipient_ids: a JSON list of user ids. */
export function extractRecipientIds(to: string): number[] {
  let data: unknown;
  try {
    data = JSON.parse(to);
  } catch {
    data = to;
  }
  if (!Array.isArray(data)) throw new ApiError("Invalid data type for recipients");
  if (data.some((id) => typeof id !== "number" || !Number.isSafeInteger(id))) throw new ApiError("Recipient list may only contain user IDs");
  return [...new Set(data as number[])];
}

/** `timestamp` (seconds) must be later than the clock's `nowMs`. */
export function checkInFuture(timestamp: number, nowMs: number): void {
  if (timestamp * 1000 <= nowMs) throw new ApiError(FUTURE_TIME_REQUIRED);
}
