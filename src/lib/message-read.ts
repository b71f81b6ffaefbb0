/**
 * Reading one message (GET /messages/{id}): the same access rule as message-access.ts
 * (canAccessChannelMessage), checked on a single statement that loads the message, the
 * reader's flags, the channel and the reader's subscription together.
 */
import type { User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { findMessageForReader, type MessageForReader } from "../db/queries/message-fetch.js";
import { canAccessChannelMessage, invalidMessage } from "./message-access.js";

/** The message if `user` may read it, with their flags; `Invalid message(s)` otherwise. */
export async function accessMessageForReading(db: Queryable, user: User, id: number): Promise<MessageForReader> {
  const found = await findMessageForReader(db, user.realm_id, user.id, id);
  if (!found) throw invalidMessage();
  if (found.message.channel_id === null) {
    if (found.flags === null) throw invalidMessage();
    return found;
  }
  if (!found.channel || !canAccessChannelMessage(user, found.channel, found.subscribed, found.flags !== null)) throw invalidMessage();
  return found;
}
