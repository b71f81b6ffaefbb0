/** scheduled_messages and reminders (event types of the same names): the user's undelivered ones, by delivery time. */
import { toApiReminder, toApiScheduledMessage } from "../../api-records/scheduled-message.js";
import { DELIVERY_REMIND, DELIVERY_SEND_LATER, listUndelivered } from "../../db/queries/scheduled-messages.js";
import type { StateFetcher } from "./types.js";

export const fetchScheduledMessageState: StateFetcher = async (sc, state) => {
  state.scheduled_messages = (await listUndelivered(sc.ctx.db, sc.realm.id, sc.user.id, DELIVERY_SEND_LATER)).map(toApiScheduledMessage);
};

export const fetchReminderState: StateFetcher = async (sc, state) => {
  state.reminders = (await listUndelivered(sc.ctx.db, sc.realm.id, sc.user.id, DELIVERY_REMIND)).map(toApiReminder);
};
