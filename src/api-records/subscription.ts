/** Subscription rows + channel → upstream's subscription objects (channel fields + personal settings). */
import type { Channel, Subscription } from "../db/schema.js";
import { toApiChannel, type ApiChannel, type ChannelGroupDefaults } from "./channel.js";

export interface ApiSubscription extends ApiChannel {
  color: string;
  is_muted: boolean;
  in_home_view: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  subscribers?: number[];
}

const flag = (v: number | null): boolean | null => (v === null ? null : v === 1);

export type SubscriptionSettings = Omit<ApiSubscription, keyof ApiChannel | "subscribers">;

/** The subscriber's own settings of a subscription record (after the channel's fields). */
export function subscriptionSettings(sub: Subscription): SubscriptionSettings {
  return {
    color: sub.color,
    is_muted: sub.is_muted === 1,
    in_home_view: sub.is_muted !== 1,
    pin_to_top: sub.pin_to_top === 1,
    desktop_notifications: flag(sub.desktop_notifications),
    audible_notifications: flag(sub.audible_notifications),
    push_notifications: flag(sub.push_notifications),
    email_notifications: flag(sub.email_notifications),
    wildcard_mentions_notify: flag(sub.wildcard_mentions_notify),
  };
}

/** `subscribers` is included only when given (include_subscribers). */
export function toApiSubscription(
  sub: Subscription,
  channel: Channel,
  subscriberIds: readonly number[],
  groups: ChannelGroupDefaults,
  includeSubscribers: boolean,
): ApiSubscription {
  const out: ApiSubscription = { ...toApiChannel(channel, subscriberIds.length, groups), ...subscriptionSettings(sub) };
  if (includeSubscribers) out.subscribers = [...subscriberIds];
  return out;
}
