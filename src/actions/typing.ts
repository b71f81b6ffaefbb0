/**
 * Typing notices (POST /typing, POST /messages/{id}/typing). Nothing is stored:
 * events go straight to the bus; clients expire a "start" on their own after
 * server_typing_started_expiry_period_milliseconds (register), as upstream.
 */
import type { AppContext } from "../context.js";
import type { Channel, Message, Realm, User, UserCard } from "../db/schema.js";
import { subscriberIdsByChannel } from "../db/queries/subscriptions.js";
import { realmHost } from "../lib/realm-host.js";
import { apiEmail } from "../lib/users.js";
import { messageEventAudience } from "../lib/message-audience.js";

/** Channels with more subscribers than this get no typing notices (upstream's fan-out cap). */
export const MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

export type TypingOp = "start" | "stop";

function person(user: UserCard, host: string) {
  return { user_id: user.id, email: apiEmail(user, host) };
}

/**
 * Direct-message typing. `participants` already includes the sender (in request order,
 * sender last when added). Every participant appears in `recipients`, but only active
 * ones are notified: the notice reveals nothing they cannot already see.
 */
export function doSendDirectTyping(ctx: AppContext, realm: Realm, sender: User, participants: readonly UserCard[], op: TypingOp): void {
  const host = realmHost(realm.string_id, ctx.config.externalHost);
  const event = {
    type: "typing",
    message_type: "direct",
    op,
    sender: person(sender, host),
    recipients: participants.map((u) => person(u, host)),
  };
  ctx.events.publish(
    realm.id,
    event,
    participants.filter((u) => u.is_active).map((u) => u.id),
  );
}

/**
 * Channel typing: to the channel's active subscribers (the people who can read the
 * topic), sender included as upstream; none when the channel is too large.
 */
export async function doSendChannelTyping(ctx: AppContext, realm: Realm, sender: User, channel: Channel, topic: string, op: TypingOp): Promise<void> {
  const subscribers = (await subscriberIdsByChannel(ctx.db, realm.id, [channel.id])).get(channel.id) ?? [];
  if (subscribers.length > MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS) return;
  const host = realmHost(realm.string_id, ctx.config.externalHost);
  ctx.events.publish(
    realm.id,
    { type: "typing", message_type: "stream", op, sender: person(sender, host), stream_id: channel.id, topic },
    subscribers,
  );
}

/**
 * Typing while editing a message (spec 4.17): to the users who can read the message
 * (messageEventAudience, the read paths' rule); none when its channel has more
 * subscribers than the cap. For direct messages those are the active participants.
 */
export async function doSendEditTyping(ctx: AppContext, realm: Realm, sender: User, message: Message, op: TypingOp): Promise<void> {
  if (message.channel_id !== null) {
    const subscribers = (await subscriberIdsByChannel(ctx.db, realm.id, [message.channel_id])).get(message.channel_id) ?? [];
    if (subscribers.length > MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS) return;
    ctx.events.publish(
      realm.id,
      {
        type: "typing_edit_message",
        op,
        sender_id: sender.id,
        message_id: message.id,
        recipient: { type: "channel", channel_id: message.channel_id, topic: message.topic },
      },
      await messageEventAudience(ctx.db, realm.id, message),
    );
    return;
  }
  const userIds = await messageEventAudience(ctx.db, realm.id, message, null);
  ctx.events.publish(
    realm.id,
    { type: "typing_edit_message", op, sender_id: sender.id, message_id: message.id, recipient: { type: "direct", user_ids: userIds } },
    userIds,
  );
}
