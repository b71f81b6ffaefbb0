/**
 * Reading one message (GET /messages/{id}): the same access rules as message-access.ts
 * (canAccessChannelMessage for users, live web-public channels for spectators), checked on
 * a single statement that loads the message with everything its API object needs.
 */
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { findMessageForReader, type MessageForReader } from "../db/queries/message-fetch.js";
import { canAccessChannelMessage, invalidMessage, notLoggedIn, spectatorsAllowed } from "./message-access.js";

/** No user has this id: a spectator has no flags and no subscriptions. */
const NOBODY = -1;

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

/** A message a spectator may read (a live web-public channel of a realm open to spectators); the same 401 otherwise. */
export async function accessWebPublicMessageForReading(db: Queryable, realm: Realm, id: number): Promise<MessageForReader> {
  if (!spectatorsAllowed(realm)) throw notLoggedIn();
  const found = await findMessageForReader(db, realm.id, NOBODY, id);
  const channel = found?.channel;
  if (!found || !channel || channel.realm_id !== realm.id || !channel.is_web_public || channel.deactivated) throw notLoggedIn();
  return found;
}
