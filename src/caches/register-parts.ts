/**
 * The realm-wide parts of /register kept between registrations (built and read by
 * src/events/initial-state; index.ts decides what flushes them). Shared by every
 * request: readers copy, never change them.
 */
import type { ChannelGroupDefaults } from "../api-records/channel.js";
import type { RealmGroupData } from "../api-records/user-group.js";
import type { Channel, CustomProfileField, User } from "../db/schema.js";

/** The realm's channels (not archived) with their subscribers and serialized records. */
export interface RealmChannels {
  /** By id. */
  channels: readonly Channel[];
  /** By name, case-insensitively (the order of subscriptions and never_subscribed). */
  byName: readonly Channel[];
  /** Active subscribers (active users only) by channel id, ascending. */
  subscribers: ReadonlyMap<number, readonly number[]>;
  groups: ChannelGroupDefaults;
  /** Each channel's API record as JSON (its subscriber count included), by id. */
  json: ReadonlyMap<number, string>;
}

/** The realm's user groups, and realm_user_groups as JSON by whether deactivated groups are included (filled on first use). */
export interface RealmGroups {
  data: RealmGroupData;
  json: Map<boolean, Buffer>;
}

/** The realm's bots, full rows (their API keys go to the administrators' /register). */
export type RealmBots = readonly User[];

/** The realm's custom profile fields (realm_users' profile data, custom_profile_fields). */
export type RealmProfileFields = readonly CustomProfileField[];
