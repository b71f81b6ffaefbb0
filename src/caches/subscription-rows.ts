/**
 * Each user's channel subscription rows (active or not, with the channel id), by user id:
 * /register reads them for its subscription lists, its channel list and the muted channels
 * of unread_msgs. Any change to subscriptions (subscribe, unsubscribe, a personal setting
 * such as a color or muting) flushes them (index.ts, kind "subscriptions": every entry for
 * a write of this process, the realm's for a `subscription` event): such changes are rare
 * next to registers, and the rows are cheap to read again. The rows
 * are frozen: every reader shares them.
 */
import type { Subscription } from "../db/schema.js";
import { RealmEntryCache } from "./realm-entries.js";

export type SubscriptionRow = Readonly<Subscription & { channel_id: number }>;

export class SubscriptionRowCache extends RealmEntryCache<number, readonly SubscriptionRow[]> {
  constructor() {
    // Bounded by users, not rows: a member of many channels holds a few hundred.
    super(10_000, true);
  }
}
