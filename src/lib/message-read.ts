/**
 * Reading one message (GET /messages/{id}): the same access rules as message-access.ts
 * (canAccessChannelMessage for users, live web-public channels for spectators), checked on
 * a small statement of current rows on every request; what the record shows comes from
 * a cache (message-read-fields.ts).
 */
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { findMessageReaderAccess, NOBODY, type MessageReaderAccess } from "../db/queries/message-reader-access.js";
import { canAccessChannelMessage, invalidMessage, notLoggedIn, spectatorsAllowed } from "./message-access.js";

/** The message's access facts if `user` may read it, with their flags; `Invalid message(s)` otherwise. */
export async function accessMessageForReading(db: Queryable, user: User, id: number): Promise<MessageReaderAccess> {
  const found = await findMessageReaderAccess(db, user.realm_id, user.id, id);
  if (!found) throw invalidMessage();
  if (found.channelId === null) {
    if (found.flags === null) throw invalidMessage();
    return found;
  }
  if (!found.channel || !canAccessChannelMessage(user, found.channel, found.subscribed, found.flags !== null)) throw invalidMessage();
  return found;
}

/** A message a spectator may read (a live web-public channel of a realm open to spectators); the same 401 otherwise. */
export async function accessWebPublicMessageForReading(db: Queryable, realm: Realm, id: number): Promise<MessageReaderAccess> {
  if (!spectatorsAllowed(realm)) throw notLoggedIn();
  const found = await findMessageReaderAccess(db, realm.id, NOBODY, id);
  const channel = found?.channel;
  if (!found || !channel || channel.realm_id !== realm.id || !channel.is_web_public || channel.deactivated) throw notLoggedIn();
  return found;
}
