/**
 * Reminders (spec 4.19, upstream schedule_reminder_for_message): stored as a scheduled
 * direct message to oneself (delivery_type 2) that the notification bot sends at the time
 * set (actions/scheduled-delivery.ts). `reminders` events go to the user's clients.
 */
import type { AppContext } from "../context.js";
import type { Realm, ScheduledMessage, User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { DELIVERY_REMIND, deleteScheduled, findOwnScheduled, insertScheduled } from "../db/queries/scheduled-messages.js";
import { sendEventOnCommit } from "../events/send.js";
import { toApiReminder } from "../api-records/scheduled-message.js";
import { ResourceNotFoundError } from "../errors.js";
import type { AccessedMessage } from "../lib/message-access.js";
import { realmUrl } from "../lib/realm-host.js";
import { normalizeReminderNote, reminderContent, reminderTargetOf } from "../lib/reminders.js";
import { REMINDER_NOT_FOUND } from "../lib/scheduled-messages.js";
import { checkMessage } from "./messages.js";

export async function doCreateReminder(
  ctx: AppContext,
  realm: Realm,
  user: User,
  input: { accessed: AccessedMessage; deliverAt: number; note: string | undefined; clientName: string },
): Promise<number> {
  const note = input.note ? normalizeReminderNote(input.note) : "";
  const target = await reminderTargetOf(ctx.db, realm, input.accessed);
  const content = reminderContent(realmUrl(realm.string_id, ctx.config.externalHost), target, note, realm.max_message_length);
  // The user is the nominal sender, for the permission checks of a message to oneself.
  const checked = await checkMessage(ctx, realm, user, { kind: "direct", recipients: [user] }, content);
  return withTransaction(ctx.db, async (tx) => {
    const row = await insertScheduled(tx, {
      realm_id: realm.id,
      sender_id: user.id,
      delivery_type: DELIVERY_REMIND,
      type: "private",
      to_json: JSON.stringify([user.id]),
      content: checked.content,
      rendered_content: checked.rendered.html,
      scheduled_timestamp: input.deliverAt,
      read_by_sender: 0,
      reminder_target_message_id: input.accessed.message.id,
      reminder_note: note || null,
      sending_client: input.clientName,
    });
    sendEventOnCommit(tx, ctx, realm.id, { type: "reminders", op: "add", reminders: [toApiReminder(row)] }, [user.id]);
    tx.onCommit(() => ctx.deliveryJob?.wakeAt(input.deliverAt));
    return row.id;
  });
}

/** The user's reminder, or 404 (another user's reminders are not found). */
export async function accessReminder(ctx: AppContext, realm: Realm, user: User, id: number): Promise<ScheduledMessage> {
  const row = await findOwnScheduled(ctx.db, realm.id, user.id, id, DELIVERY_REMIND);
  if (!row) throw new ResourceNotFoundError(REMINDER_NOT_FOUND);
  return row;
}

export async function doDeleteReminder(ctx: AppContext, realm: Realm, user: User, row: ScheduledMessage): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    await deleteScheduled(tx, realm.id, row.id);
    sendEventOnCommit(tx, ctx, realm.id, { type: "reminders", op: "remove", reminder_id: row.id }, [user.id]);
  });
}
