/**
 * Scheduling messages (spec 4.1, upstream check_schedule_message / edit_scheduled_message /
 * delete_scheduled_message): the message passes the send path's checks when scheduled and
 * again when delivered (src/actions/scheduled-delivery.ts). `scheduled_messages` events go
 * to the sender's clients after commit; the delivery job learns each new delivery time.
 */
import type { AppContext } from "../context.js";
import type { Realm, ScheduledMessage, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import {
  DELIVERY_SEND_LATER,
  deleteScheduled,
  findOwnScheduled,
  insertScheduled,
  updateScheduled,
} from "../db/queries/scheduled-messages.js";
import { sendEventOnCommit } from "../events/send.js";
import { toApiScheduledMessage } from "../api-records/scheduled-message.js";
import { ApiError, ResourceNotFoundError } from "../errors.js";
import { directAudience } from "../lib/addressee.js";
import { SCHEDULED_MESSAGE_NOT_FOUND } from "../lib/scheduled-messages.js";
import { checkMessage, type CheckedMessage, type SendTarget } from "./messages.js";

export interface ScheduleInput {
  target: SendTarget;
  content: string;
  /** UNIX seconds. */
  deliverAt: number;
  readBySender?: boolean;
  clientName: string;
}

/** The addressee columns of a checked message. */
export function addresseeColumns(sender: User, target: SendTarget, checked: CheckedMessage) {
  if (checked.channel) return { type: "stream", channel_id: checked.channel.id, to_json: "[]", topic: checked.topic };
  const ids = target.kind === "direct" ? target.recipients.map((u) => u.id) : [];
  return { type: "private", channel_id: null, to_json: JSON.stringify(directAudience(ids, sender.id)), topic: "" };
}

/** A message to oneself only is left unread for its sender by default (upstream's heuristic). */
function isMessageToSelf(sender: User, target: SendTarget): boolean {
  return target.kind === "direct" && target.recipients.every((u) => u.id === sender.id);
}

export const scheduledUpdateEvent = (row: ScheduledMessage) => ({ type: "scheduled_messages", op: "update", scheduled_message: toApiScheduledMessage(row) });

function wakeDeliveryOnCommit(tx: Tx, ctx: AppContext, timestamp: number): void {
  tx.onCommit(() => ctx.deliveryJob?.wakeAt(timestamp));
}

export async function doScheduleMessage(ctx: AppContext, realm: Realm, sender: User, input: ScheduleInput): Promise<number> {
  const checked = await checkMessage(ctx, realm, sender, input.target, input.content);
  return withTransaction(ctx.db, async (tx) => {
    const row = await insertScheduled(tx, {
      realm_id: realm.id,
      sender_id: sender.id,
      delivery_type: DELIVERY_SEND_LATER,
      ...addresseeColumns(sender, input.target, checked),
      content: checked.content,
      rendered_content: checked.rendered.html,
      scheduled_timestamp: input.deliverAt,
      read_by_sender: (input.readBySender ?? !isMessageToSelf(sender, input.target)) ? 1 : 0,
      sending_client: input.clientName,
    });
    sendEventOnCommit(tx, ctx, realm.id, { type: "scheduled_messages", op: "add", scheduled_messages: [toApiScheduledMessage(row)] }, [sender.id]);
    wakeDeliveryOnCommit(tx, ctx, input.deliverAt);
    return row.id;
  });
}

/** The sender's scheduled message (not a reminder), or 404. */
export async function accessScheduledMessage(ctx: AppContext, realm: Realm, sender: User, id: number): Promise<ScheduledMessage> {
  const row = await findOwnScheduled(ctx.db, realm.id, sender.id, id, DELIVERY_SEND_LATER);
  if (!row) throw new ResourceNotFoundError(SCHEDULED_MESSAGE_NOT_FOUND);
  return row;
}

export const alreadySent = () => new ApiError("Scheduled message was already sent");

export interface ScheduledEdit {
  /** Set when type, `to` or content changed: the whole message passed the send checks again. */
  recheck?: { target: SendTarget; checked: CheckedMessage };
  /** A topic-only change of a channel message (already normalized). */
  topic?: string;
  deliverAt?: number;
  clientName: string;
}

export async function doEditScheduledMessage(ctx: AppContext, realm: Realm, sender: User, row: ScheduledMessage, edit: ScheduledEdit): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    // Lock against a concurrent delivery, then look again: it may have committed meanwhile.
    const current = await findOwnScheduled(tx, realm.id, sender.id, row.id, DELIVERY_SEND_LATER, true);
    if (!current) throw new ResourceNotFoundError(SCHEDULED_MESSAGE_NOT_FOUND);
    if (current.delivered) throw alreadySent();
    const values: Parameters<typeof updateScheduled>[3] = { sending_client: edit.clientName, failed: 0, failure_message: null };
    if (edit.recheck) {
      Object.assign(values, addresseeColumns(sender, edit.recheck.target, edit.recheck.checked), {
        content: edit.recheck.checked.content,
        rendered_content: edit.recheck.checked.rendered.html,
      });
    } else if (edit.topic !== undefined && current.type === "stream") {
      values.topic = edit.topic;
    }
    if (edit.deliverAt !== undefined) values.scheduled_timestamp = edit.deliverAt;
    const updated = await updateScheduled(tx, realm.id, row.id, values);
    sendEventOnCommit(tx, ctx, realm.id, scheduledUpdateEvent(updated), [sender.id]);
    wakeDeliveryOnCommit(tx, ctx, Number(updated.scheduled_timestamp));
  });
}

export async function doDeleteScheduledMessage(ctx: AppContext, realm: Realm, sender: User, row: ScheduledMessage): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    await deleteScheduled(tx, realm.id, row.id);
    sendEventOnCommit(tx, ctx, realm.id, { type: "scheduled_messages", op: "remove", scheduled_message_id: row.id }, [sender.id]);
  });
}
