/** Channel rows → upstream's channel ("stream") objects. Pure: callers batch-load the inputs. */
import type { Channel } from "../db/schema.js";

/** Ids of the realm's system groups used as channel permission defaults. */
export interface ChannelGroupDefaults {
  administrators: number;
  everyone: number;
  nobody: number;
}

/** Upstream's stream_post_policy values. */
export const ChannelPostPolicy = { EVERYONE: 1, ADMINS: 2 } as const;

export interface ApiChannel {
  stream_id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: number;
  creator_id: number | null;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  first_message_id: number | null;
  folder_id: null;
  is_archived: boolean;
  is_recently_active: boolean;
  message_retention_days: number | null;
  stream_post_policy: number;
  is_announcement_only: boolean;
  topics_policy: string;
  can_add_subscribers_group: number;
  can_administer_channel_group: number;
  can_delete_any_message_group: number;
  can_delete_own_message_group: number;
  can_move_messages_out_of_channel_group: number;
  can_move_messages_within_channel_group: number;
  can_remove_subscribers_group: number;
  can_resolve_topics_group: number;
  can_send_message_group: number;
  can_subscribe_group: number;
  stream_weekly_traffic: null;
  subscriber_count: number;
}

export function toApiChannel(channel: Channel, subscriberCount: number, groups: ChannelGroupDefaults): ApiChannel {
  return {
    stream_id: channel.id,
    name: channel.name,
    description: channel.description,
    rendered_description: channel.rendered_description,
    date_created: channel.date_created,
    creator_id: channel.creator_id,
    invite_only: channel.invite_only === 1,
    is_web_public: channel.is_web_public === 1,
    history_public_to_subscribers: channel.history_public_to_subscribers === 1,
    first_message_id: channel.first_message_id,
    folder_id: null,
    is_archived: channel.deactivated === 1,
    is_recently_active: true,
    message_retention_days: channel.message_retention_days,
    stream_post_policy: channel.is_announcement_only ? ChannelPostPolicy.ADMINS : ChannelPostPolicy.EVERYONE,
    is_announcement_only: channel.is_announcement_only === 1,
    topics_policy: "inherit",
    can_add_subscribers_group: groups.nobody,
    can_administer_channel_group: channel.can_administer_channel_group_id ?? groups.nobody,
    can_delete_any_message_group: groups.nobody,
    can_delete_own_message_group: groups.nobody,
    can_move_messages_out_of_channel_group: groups.nobody,
    can_move_messages_within_channel_group: groups.nobody,
    can_remove_subscribers_group: channel.can_remove_subscribers_group_id ?? groups.administrators,
    can_resolve_topics_group: groups.nobody,
    can_send_message_group: channel.can_send_message_group_id ?? groups.everyone,
    can_subscribe_group: groups.nobody,
    stream_weekly_traffic: null,
    subscriber_count: subscriberCount,
  };
}
