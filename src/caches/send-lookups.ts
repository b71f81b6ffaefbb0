/**
 * What every send reads that changes rarely, kept between sends: the addressed channel's
 * row, its recipients (active subscribers who are active users, with their alert words),
 * the groups containing the sender (the channel's can_send_message_group) and the realm's
 * linkifiers. Four of a send's six statements otherwise. What flushes each is decided in
 * index.ts: channel writes, subscription, user, alert-word, group and linkifier changes.
 */
import type { Channel } from "../db/schema.js";
import { PerRealmCache } from "./per-realm.js";
import { RealmEntryCache } from "./realm-entries.js";

export interface ChannelRecipients {
  /** Ascending. */
  readonly userIds: readonly number[];
  readonly alertWords: ReadonlyArray<{ readonly user_id: number; readonly word: string }>;
}

export type Linkifier = { id: number; pattern: string; url_template: string };

/** A channel row by realm and indicator (`id:5`, `name:general` lowercased); undefined when none. */
export class ChannelLookupCache extends RealmEntryCache<string, Readonly<Channel> | undefined> {
  constructor() {
    super(10_000, true);
  }

  static key(realmId: number, indicator: { id: number } | { name: string }): string {
    return "id" in indicator ? `${realmId}:id:${indicator.id}` : `${realmId}:name:${indicator.name.toLowerCase()}`;
  }
}

/** By the channel's recipient id (unique across realms). */
export class ChannelRecipientCache extends RealmEntryCache<number, ChannelRecipients> {
  constructor() {
    super(10_000, true);
  }
}

/** The ids of every group containing a user, directly or through subgroups, by user id. */
export class GroupsContainingCache extends RealmEntryCache<number, ReadonlySet<number>> {
  constructor() {
    super(100_000);
  }
}

/** The realm's linkifiers in their order (shared by every reader: never changed in place). */
export class LinkifierCache extends PerRealmCache<Linkifier[]> {}
