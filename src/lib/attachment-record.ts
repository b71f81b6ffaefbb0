/** An upload as the API shows it (upstream Attachment.to_dict): times in milliseconds. */
import type { Attachment } from "../db/schema.js";

export function apiAttachment(a: Attachment & { messages: Array<{ id: number; date_sent: number }> }) {
  return {
    id: a.id,
    name: a.file_name,
    path_id: a.path_id,
    size: Number(a.size),
    create_time: Number(a.create_time) * 1000,
    messages: a.messages.map((m) => ({ id: m.id, date_sent: m.date_sent * 1000 })),
  };
}
