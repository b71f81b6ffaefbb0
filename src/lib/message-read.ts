/**
 * Reading one message (GET /messages/{id}): the same access rules as message-access.ts
 * (canAccessChannelMessage for users, live web-public channels for spectators), checked on
 * current rows on every request: a small statement, or on SQLite the facts that statement
 * gave while nothing has been committed since (caches/message-reader-access.ts); what the
 * record shows comes from a cache (message-read-fields.ts).
 */
import type { AppContext } from "../context.js";
import type { Realm, User } from "../db/schema.js";
import { directReaderOf } from "../db/direct-reads.js";
import { findMessageReaderAccess, NOBODY, type MessageReaderAccess } from "../db/queries/message-reader-access.js";
import { canAccessChannelMessage, invalidMessage, notLoggedIn, spectatorsAllowed } from "./message-access.js";

/** The message's access facts if `user` may read it, with their flags; `Invalid message(s)` otherwise. */
export async function accessMessageForReading(ctx: AppContext, user: User, id: number): Promise<MessageReaderAccess> {
  const found = await currentReaderAccess(ctx, user.realm_id, user.id, id);
  if (!found) throw invalidMessage();
  if (found.channelId === null) {
    if (found.flags === null) throw invalidMessage();
    return found;
  }
  if (!found.channel || !canAccessChannelMessage(user, found.channel, found.subscribed, found.flags !== null)) throw invalidMessage();
  return found;
}

/** A message a spectator may read (a live web-public channel of a realm open to spectators); the same 401 otherwise. */
export async function accessWebPublicMessageForReading(ctx: AppContext, realm: Realm, id: number): Promise<MessageReaderAccess> {
  if (!spectatorsAllowed(realm)) throw notLoggedIn();
  const found = await currentReaderAccess(ctx, realm.id, NOBODY, id);
  const channel = found?.channel;
  if (!found || !channel || channel.realm_id !== realm.id || !channel.is_web_public || channel.deactivated) throw notLoggedIn();
  return found;
}

/** The access facts as the rows show them now (undefined: the realm has no such message). */
async function currentReaderAccess(ctx: AppContext, realmId: number, readerId: number, messageId: number): Promise<MessageReaderAccess | undefined> {
  const reader = directReaderOf(ctx.db);
  if (reader === undefined) return findMessageReaderAccess(ctx.db, realmId, readerId, messageId);
  // Read before the rows: a commit landing in between only makes the entry look older.
  const commits = reader.commitCount();
  const cache = ctx.caches.messageReaderAccess;
  const hit = cache.current(realmId, readerId, messageId, commits);
  if (hit !== undefined) return hit;
  const found = await findMessageReaderAccess(ctx.db, realmId, readerId, messageId);
  if (found !== undefined) cache.remember(realmId, readerId, messageId, commits, found);
  return found;
}
