/**
 * Messages the server sends by itself (upstream internal_send_*_message): the realm's
 * notification bot posts through the normal send path (actions/messages.ts doSendMessage),
 * so rendering, flags, per-user rows and `message` events are exactly those of any message.
 *
 * Notices are sent after the change they describe has committed, each in its own
 * transaction. As upstream's internal sends do, a notice that cannot be sent (its
 * channel was archived meanwhile…) is skipped rather than failing the request.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import type { Channel, Realm, User } from "../db/schema.js";
import { withTransaction, type Queryable, type Tx } from "../db/tx.js";
import { usersByIds } from "../db/queries/messages.js";
import { realmHost } from "../lib/realm-host.js";
import { generateApiKey } from "../lib/secrets.js";
import { BotType, Role } from "../lib/roles.js";
import { NOTIFICATION_BOT_NAME, notificationBotEmail } from "../lib/notification-bot.js";
import { doSendMessage, type SendTransactionHooks } from "./messages.js";

export type InternalTarget = { channel: Pick<Channel, "id">; topic: string } | { users: User[] };

export interface InternalMessage {
  to: InternalTarget;
  content: string;
  /** Recipients who get the message already read (upstream mark_as_read: the acting user). */
  markReadFor?: readonly number[];
  /** When given, every other recipient gets it read (upstream limit_unread_user_ids). */
  unreadOnlyFor?: ReadonlySet<number>;
  /** Work done in the message's own transaction (scheduled deliveries claim their row there). */
  inTransaction?: SendTransactionHooks;
}

/**
 * Creates the realm's notification bot in the caller's transaction: a generic bot with
 * no owner, no password, an API key nobody is given, in no user group (not even the
 * role groups: like upstream's system bots it is no member of the organization), and
 * with no user-created hooks (no realm_user event, no default subscriptions).
 */
export async function createNotificationBotInTx(tx: Tx, ctx: AppContext, realm: Realm): Promise<User> {
  const bot = await tx
    .insertInto("users")
    .values({
      realm_id: realm.id,
      delivery_email: notificationBotEmail(realmHost(realm.string_id, ctx.config.externalHost)),
      full_name: NOTIFICATION_BOT_NAME,
      role: Role.MEMBER,
      is_bot: 1,
      bot_type: BotType.GENERIC,
      bot_owner_id: null,
      api_key: generateApiKey(),
      password_hash: null,
      date_joined: nowSeconds(ctx),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.updateTable("realms").set({ notification_bot_id: bot.id }).where("id", "=", realm.id).execute();
  return bot;
}

async function loadBot(db: Queryable, realm: Realm): Promise<User | undefined> {
  if (realm.notification_bot_id === null) return undefined;
  return (await usersByIds(db, realm.id, [realm.notification_bot_id]))[0];
}

/**
 * The realm's notification bot, created on first use for realms older than the bot, and
 * the realm row as doSendMessage must see it (knowing its bot).
 */
export async function ensureNotificationBot(ctx: AppContext, realm: Realm): Promise<{ bot: User; realm: Realm }> {
  const existing = await loadBot(ctx.db, realm);
  if (existing) return { bot: existing, realm };
  const bot = await withTransaction(ctx.db, async (tx) => {
    const row = await tx.selectFrom("realms").selectAll().where("id", "=", realm.id).executeTakeFirstOrThrow();
    // Another request may have created it meanwhile.
    return (await loadBot(tx, row)) ?? createNotificationBotInTx(tx, ctx, row);
  });
  return { bot, realm: { ...realm, notification_bot_id: bot.id } };
}

/**
 * Sends `content` from the realm's notification bot to a channel topic or to users (a
 * direct message, or a group direct message). Returns the message id, or null when the
 * message could not be sent (upstream logs and skips such internal messages).
 */
export async function internalSendMessage(ctx: AppContext, realm: Realm, msg: InternalMessage): Promise<number | null> {
  const { bot, realm: current } = await ensureNotificationBot(ctx, realm);
  const target =
    "channel" in msg.to
      ? { kind: "channel" as const, channel: { id: msg.to.channel.id }, topic: msg.to.topic }
      : { kind: "direct" as const, recipients: msg.to.users };
  try {
    return await doSendMessage(ctx, current, bot, {
      target,
      content: msg.content,
      clientName: "Internal",
      markReadFor: msg.markReadFor,
      unreadOnlyFor: msg.unreadOnlyFor,
      inTransaction: msg.inTransaction,
    });
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}
