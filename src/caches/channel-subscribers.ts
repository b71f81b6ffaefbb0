/**
 * Each realm's active subscribers (active users only) by channel, for /register's
 * subscriber counts and lists: at thousands of users the rows are the costliest read of a
 * registration. Flushed by any subscription write or event, by user changes (a deactivated
 * user stops counting) and by channel changes (a new or deleted channel).
 */
import { GenerationalMap } from "./generational-map.js";

export type SubscribersByChannel = ReadonlyMap<number, readonly number[]>;

export class ChannelSubscriberCache {
  private readonly byRealm = new GenerationalMap<number, SubscribersByChannel>(1000);

  async get(realmId: number, load: () => Promise<SubscribersByChannel>): Promise<SubscribersByChannel> {
    return this.byRealm.getOrLoad(realmId, load);
  }

  flushRealm(realmId: number): void {
    this.byRealm.flush((id) => id === realmId);
  }

  flushAll(): void {
    this.byRealm.flush();
  }
}
