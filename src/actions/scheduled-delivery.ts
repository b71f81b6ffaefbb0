/**
 * Delivering one due scheduled message or reminder (upstream try_deliver_one_scheduled_message,
 * send_scheduled_message, send_reminder), exactly once.
 *
 * The row is claimed inside the transaction that stores the sent message (or marks it
 * failed): the claim (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has one writer) and the
 * `delivered` mark commit together with the message, so a crash before commit leaves the
 * row pending and one after it leaves it delivered, and two processes never both send it.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import type { Realm, ScheduledMessage, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { getRealm } from "../db/queries/realms.js";
import { usersByIds } from "../db/queries/messages.js";
import { claimPending, DELIVERY_REMIND, findScheduledById, updateScheduled } from "../db/queries/scheduled-messages.js";
import { isDatabaseUnavailable } from "../db/unavailable.js";
import { sendEventOnCommit } from "../events/send.js";
import { ApiError } from "../errors.js";
import { accessMessage } from "../lib/message-access.js";
import { isNotificationBot, scheduledMessageFailedNotice } from "../lib/notification-bot.js";
import { realmUrl } from "../lib/realm-host.js";
import { reminderContent, reminderTargetOf } from "../lib/reminders.js";
import { SCHEDULED_MESSAGE_LATE_CUTOFF_SECONDS } from "../lib/scheduled-messages.js";
import { internalSendMessage } from "./internal-messages.js";
import { checkMessage, sendCheckedMessage, type SendTarget, type SendTransactionHooks } from "./messages.js";
import { scheduledUpdateEvent } from "./scheduled-messages.js";

export type DeliveryOutcome = "delivered" | "failed" | "skipped";

/** The row was delivered, failed, deleted or edited by someone else since we read it. */
class ClaimLost extends Error {}

/** Failures for which upstream tells nobody (the sender can no longer read it). */
class SilentFailure extends ApiError {}

const ADDRESSEE_COLUMNS = ["type", "channel_id", "to_json", "topic", "content", "scheduled_timestamp", "sending_client"] as const;

/** Claims the row as it was read, or throws ClaimLost (the transaction then rolls back). */
async function claim(tx: Tx, row: ScheduledMessage): Promise<void> {
  const current = await claimPending(tx, row.id);
  if (!current || ADDRESSEE_COLUMNS.some((c) => String(current[c]) !== String(row[c]))) throw new ClaimLost();
}

function deliveredHooks(ctx: AppContext, row: ScheduledMessage): SendTransactionHooks {
  return {
    before: (tx) => claim(tx, row),
    after: async (tx, messageId) => {
      await updateScheduled(tx, row.realm_id, row.id, { delivered: 1, delivered_message_id: messageId });
      const event =
        row.delivery_type === DELIVERY_REMIND
          ? { type: "reminders", op: "remove", reminder_id: row.id }
          : { type: "scheduled_messages", op: "remove", scheduled_message_id: row.id };
      sendEventOnCommit(tx, ctx, row.realm_id, event, [row.sender_id]);
    },
  };
}

function failedHooks(ctx: AppContext, row: ScheduledMessage, message: string): SendTransactionHooks {
  return {
    before: (tx) => claim(tx, row),
    after: async (tx) => {
      const updated = await updateScheduled(tx, row.realm_id, row.id, { failed: 1, failure_message: message });
      // Reminders have no failed state on the client (upstream sends no event for them).
      if (row.delivery_type !== DELIVERY_REMIND) sendEventOnCommit(tx, ctx, row.realm_id, scheduledUpdateEvent(updated), [row.sender_id]);
    },
  };
}

/** Delivers the row if it is still pending; never throws for a failed send (the row turns failed). */
export async function deliverScheduled(ctx: AppContext, id: number): Promise<DeliveryOutcome> {
  const row = await findScheduledById(ctx.db, id);
  if (!row || row.delivered || row.failed) return "skipped";
  const realm = await getRealm(ctx.db, row.realm_id);
  const [sender] = await usersByIds(ctx.db, realm.id, [row.sender_id]);
  try {
    // Upstream repeats the account checks of an API request, in case they changed.
    if (realm.deactivated) throw new SilentFailure("This organization has been deactivated");
    if (!sender || !sender.is_active) throw new SilentFailure("Account is deactivated");
    if (row.delivery_type === DELIVERY_REMIND) await sendReminder(ctx, realm, sender, row);
    else await sendScheduledMessage(ctx, realm, sender, row);
    return "delivered";
  } catch (err) {
    if (err instanceof ClaimLost) return "skipped";
    // The database went away mid-delivery: nothing was committed; the job tries again later.
    if (isDatabaseUnavailable(err)) throw err;
    const message = err instanceof ApiError ? err.message : "Internal server error";
    if (!(err instanceof ApiError)) ctx.log?.error({ err, scheduledMessageId: row.id }, "unexpected error delivering a scheduled message");
    return markFailed(ctx, realm, sender, row, message, !(err instanceof SilentFailure));
  }
}

async function sendScheduledMessage(ctx: AppContext, realm: Realm, sender: User, row: ScheduledMessage): Promise<void> {
  if (nowSeconds(ctx) > Number(row.scheduled_timestamp) + SCHEDULED_MESSAGE_LATE_CUTOFF_SECONDS) {
    throw new ApiError("Message could not be sent at the scheduled time.");
  }
  let target: SendTarget;
  if (row.type === "stream") {
    target = { kind: "channel", channel: { id: row.channel_id! }, topic: row.topic };
  } else {
    const ids = JSON.parse(row.to_json) as number[];
    const users = new Map((await usersByIds(ctx.db, realm.id, ids)).map((u) => [u.id, u]));
    target = { kind: "direct", recipients: ids.map((i) => users.get(i)).filter((u): u is User => u !== undefined) };
  }
  // Checked again at sending time: permissions, channels and mentions may have changed.
  const checked = await checkMessage(ctx, realm, sender, target, row.content);
  await sendCheckedMessage(
    ctx,
    realm,
    sender,
    { target, content: row.content, clientName: row.sending_client, readBySender: row.read_by_sender === 1, inTransaction: deliveredHooks(ctx, row) },
    checked,
  );
}

/** The reminder text from the message as it is now, or the stored text when it is out of reach. */
async function currentReminderContent(ctx: AppContext, realm: Realm, user: User, row: ScheduledMessage): Promise<string> {
  try {
    const target = await reminderTargetOf(ctx.db, realm, await accessMessage(ctx.db, user, row.reminder_target_message_id!));
    return reminderContent(realmUrl(realm.string_id, ctx.config.externalHost), target, row.reminder_note, realm.max_message_length);
  } catch (err) {
    if (err instanceof ApiError) return row.content;
    throw err;
  }
}

async function sendReminder(ctx: AppContext, realm: Realm, user: User, row: ScheduledMessage): Promise<void> {
  const content = await currentReminderContent(ctx, realm, user, row);
  const id = await internalSendMessage(ctx, realm, { to: { users: [user] }, content, inTransaction: deliveredHooks(ctx, row) });
  if (id === null) throw new ApiError("Reminder could not be sent.");
}

/**
 * Marks the row failed, in the same transaction as the notification bot's notice to the
 * sender when one is due (scheduled messages of active senders), so the notice is sent once.
 */
async function markFailed(ctx: AppContext, realm: Realm, sender: User | undefined, row: ScheduledMessage, message: string, notify: boolean): Promise<DeliveryOutcome> {
  const hooks = failedHooks(ctx, row, message);
  try {
    if (notify && sender && row.delivery_type !== DELIVERY_REMIND && !isNotificationBot(realm, sender)) {
      const notice = scheduledMessageFailedNotice(Number(row.scheduled_timestamp), message);
      if ((await internalSendMessage(ctx, realm, { to: { users: [sender] }, content: notice, inTransaction: hooks })) !== null) return "failed";
    }
    await withTransaction(ctx.db, async (tx) => {
      await hooks.before(tx);
      await hooks.after(tx, 0);
    });
    return "failed";
  } catch (err) {
    if (err instanceof ClaimLost) return "skipped";
    throw err;
  }
}
