/** scheduled_messages and reminders events on /register state: add, update, remove, kept in delivery-time order. */
type State = Record<string, any>;
type Event = Record<string, any>;

const byDeliveryTime = (idKey: string) => (a: any, b: any) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a[idKey] - b[idKey];

export function applyScheduledMessages(state: State, e: Event): void {
  if (!state.scheduled_messages) return;
  const key = "scheduled_message_id";
  let list: any[] = state.scheduled_messages;
  if (e.op === "add") list = [...list, ...e.scheduled_messages];
  if (e.op === "update") list = list.map((m) => (m[key] === e.scheduled_message[key] ? e.scheduled_message : m));
  if (e.op === "remove") list = list.filter((m) => m[key] !== e.scheduled_message_id);
  state.scheduled_messages = list.sort(byDeliveryTime(key));
}

export function applyReminders(state: State, e: Event): void {
  if (!state.reminders) return;
  let list: any[] = state.reminders;
  if (e.op === "add") list = [...list, ...e.reminders];
  if (e.op === "remove") list = list.filter((m) => m.reminder_id !== e.reminder_id);
  state.reminders = list.sort(byDeliveryTime("reminder_id"));
}
