/** Reminders (spec 2.12, 4.19): POST/GET /reminders, DELETE /reminders/{reminder_id}. */
import { accessReminder, doCreateReminder, doDeleteReminder } from "../../actions/reminders.js";
import { toApiReminder } from "../../api-records/scheduled-message.js";
import { DELIVERY_REMIND, listUndelivered } from "../../db/queries/scheduled-messages.js";
import { accessMessage } from "../../lib/message-access.js";
import { checkInFuture } from "../../lib/scheduled-messages.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** POST /api/v1/reminders (spec 4.19) */
async function createReminder(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    message_id: p.int(),
    scheduled_delivery_timestamp: p.int(),
    note: p.str().optional(),
  });
  checkInFuture(params.scheduled_delivery_timestamp, req.ctx.now());
  const accessed = await accessMessage(req.ctx.db, req.user, params.message_id);
  const id = await doCreateReminder(req.ctx, req.realm, req.user, {
    accessed,
    deliverAt: params.scheduled_delivery_timestamp,
    note: params.note,
    clientName: req.clientName,
  });
  return { reminder_id: id };
}

/** GET /api/v1/reminders: the user's undelivered reminders, by delivery time. */
async function fetchReminders(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  const rows = await listUndelivered(req.ctx.db, req.realm.id, req.user.id, DELIVERY_REMIND);
  return { reminders: rows.map(toApiReminder) };
}

/** DELETE /api/v1/reminders/{reminder_id} */
async function deleteReminder(req: AuthedRequest): Promise<ViewResult> {
  const row = await accessReminder(req.ctx, req.realm, req.user, pathInt(req, "reminder_id"));
  await doDeleteReminder(req.ctx, req.realm, req.user, row);
  return {};
}

export const routes = [
  route("POST", "/reminders", createReminder),
  route("GET", "/reminders", fetchReminders),
  route("DELETE", "/reminders/{reminder_id:int}", deleteReminder),
];
