/**
 * Test helper: creates a channel in the test realm (as its owner, or `creator`) and
 * subscribes the given users, through the same actions the API uses.
 */
import type { Channel, User } from "../../src/db/schema.js";
import { doCreateChannel } from "../../src/actions/subscriptions.js";
import type { TestServer } from "./server.js";

export interface CreateChannelOptions {
  name: string;
  description?: string;
  invite_only?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  subscribers: User[];
  /** Defaults to the owner of the first subscriber's realm (or the test realm's owner). */
  creator?: User;
}

export async function createChannel(s: TestServer, opts: CreateChannelOptions): Promise<Channel> {
  const realmId = opts.creator?.realm_id ?? opts.subscribers[0]?.realm_id ?? s.realm.realm.id;
  const seeded = realmId === s.other.realm.id ? s.other : s.realm;
  return doCreateChannel(s.ctx, seeded.realm, opts.creator ?? seeded.owner, {
    name: opts.name,
    description: opts.description ?? "",
    inviteOnly: opts.invite_only ?? false,
    isWebPublic: opts.is_web_public ?? false,
    historyPublicToSubscribers: opts.history_public_to_subscribers,
    subscribers: opts.subscribers,
  });
}
