/**
 * The server's caches and what invalidates them, in one place:
 * - events on the bus (the same ones clients receive; with a shared bus, other nodes' too),
 * - writes of this process to the tables they read (write-watcher.ts),
 * - commits of other processes: SQLite's WAL commit counter (db/wal-commits.ts), PostgreSQL's NOTIFY from the CLI.
 * Every flush bumps a generation, so a fill that raced with it is dropped, not stored.
 */
import type { EventPublisher } from "../events/publisher.js";
import type { Change } from "./change.js";
import { changesOf } from "./event-invalidation.js";
import { OwnProfileCache } from "./own-profiles.js";
import { MaxMessageIdCache } from "./max-message-ids.js";
import { MessageRecordCache } from "./message-records.js";
import { MessageFactCache } from "./message-facts.js";
import { MessageReaderAccessCache } from "./message-reader-access.js";
import { PerRealmCache } from "./per-realm.js";
import { PresenceCache } from "./presence.js";
import { RecipientCache } from "./recipients.js";
import type { RealmBots, RealmChannels, RealmGroups, RealmProfileFields } from "./register-parts.js";
import { RealmCache } from "./realms.js";
import { ServerSettingsCache } from "./server-settings.js";
import { UserListCache } from "./user-lists.js";
import { UserByApiKeyCache } from "./users-by-api-key.js";
import { SessionCache } from "./sessions.js";
import { ChannelLookupCache, ChannelRecipientCache, GroupsContainingCache, LinkifierCache } from "./send-lookups.js";
import { UnreadFloorCache } from "./unread-floors.js";
import { SubscriptionRowCache } from "./subscription-rows.js";
import { CacheWriteWatcher } from "./write-watcher.js";

/** Whether another process's writes are being watched (false: the caches cannot be trusted). */
export interface ExternalWrites {
  /** True when something changed (or may have) since the last call. */
  changed(): boolean;
}

export class Caches {
  readonly realms = new RealmCache();
  readonly usersByApiKey = new UserByApiKeyCache();
  /** Browser sessions by token hash, with their user and realm (the session twin of usersByApiKey). */
  readonly sessions = new SessionCache();
  readonly serverSettings = new ServerSettingsCache();
  readonly userLists = new UserListCache();
  readonly ownProfiles = new OwnProfileCache();
  readonly presence = new PresenceCache();
  readonly maxMessageIds = new MaxMessageIdCache();
  /** GET /messages/{id}'s reader-independent records. */
  readonly messageRecords = new MessageRecordCache();
  /** /register's unread read: each message's recipient, sender and topic. */
  readonly messageFacts = new MessageFactCache();
  /** GET /messages/{id}'s access facts on SQLite, valid while this process commits nothing. */
  readonly messageReaderAccess = new MessageReaderAccessCache();
  /**
   * /register's realm-wide parts (register-parts.ts): channel records with their
   * subscribers, user groups with their members, bots.
   */
  readonly registerChannels = new PerRealmCache<RealmChannels>();
  readonly registerGroups = new PerRealmCache<RealmGroups>();
  readonly registerBots = new PerRealmCache<RealmBots>();
  readonly registerProfileFields = new PerRealmCache<RealmProfileFields>();
  /** user_status and realm_emoji as JSON. */
  readonly registerStatuses = new PerRealmCache<Buffer>();
  readonly registerEmoji = new PerRealmCache<Buffer>();
  /** What each recipient id stands for (rows never change: only flushes of everything empty it). */
  readonly recipients = new RecipientCache();
  /** What every send reads (send-lookups.ts). */
  readonly channelLookups = new ChannelLookupCache();
  readonly channelRecipients = new ChannelRecipientCache();
  readonly groupsContaining = new GroupsContainingCache();
  readonly linkifiers = new LinkifierCache();
  /** Where each user's unread rows begin (SQLite; writes that leave old rows unread lower it themselves). */
  readonly unreadFloors = new UnreadFloorCache();
  /** /register's subscription rows of each caller. */
  readonly subscriptionRows = new SubscriptionRowCache();
  /** Every cache above: what a flush of a realm or of everything goes through. */
  private readonly all = [
    this.realms,
    this.usersByApiKey,
    this.sessions,
    this.serverSettings,
    this.userLists,
    this.ownProfiles,
    this.presence,
    this.maxMessageIds,
    this.messageRecords,
    this.messageFacts,
    this.messageReaderAccess,
    this.registerChannels,
    this.registerGroups,
    this.registerBots,
    this.registerProfileFields,
    this.registerStatuses,
    this.registerEmoji,
    this.recipients,
    this.channelLookups,
    this.channelRecipients,
    this.groupsContaining,
    this.linkifiers,
    this.unreadFloors,
    this.subscriptionRows,
  ];
  /**
   * What any user change may make stale besides that user's own entries (active users, roles,
   * bots, senders' names and avatars; a deactivated user receives no message).
   */
  private readonly onAnyUserChange = [
    this.userLists,
    this.presence,
    this.registerChannels,
    this.registerGroups,
    this.registerBots,
    this.registerStatuses,
    this.messageRecords,
    this.channelRecipients,
  ];
  readonly writeWatcher = new CacheWriteWatcher(
    (change) => this.apply(change),
    (change) => this.committedWrite?.(change),
  );
  /** Set on a node of a cluster: tells the other nodes of this process's committed writes. */
  committedWrite: ((change: Change) => void) | undefined;
  private external: ExternalWrites | undefined;

  /** Flushes what each event may have changed (event-invalidation.ts). */
  watch(events: EventPublisher): () => void {
    return events.subscribeAll((published) => {
      for (const change of changesOf(published)) this.apply(change);
    });
  }

  apply(change: Change): void {
    const { realmId } = change;
    switch (change.kind) {
      case "realm":
        return this.each([this.realms, this.usersByApiKey, this.sessions, this.serverSettings, this.userLists, this.presence, this.messageRecords], realmId);
      case "user":
        // Group memberships (a role's system group) are rows of their own ("groups"); the
        // user's own entry goes anyway, without sweeping every user's.
        if (change.userId === undefined) return this.each([this.usersByApiKey, this.sessions, this.ownProfiles, this.groupsContaining, ...this.onAnyUserChange], realmId);
        this.usersByApiKey.flushUser(change.userId);
        this.sessions.flushUser(change.userId);
        this.ownProfiles.flushKeys([change.userId]);
        this.groupsContaining.flushKeys([change.userId]);
        return this.each(this.onAnyUserChange, realmId);
      case "profile":
        return this.each([this.ownProfiles, this.userLists, this.registerProfileFields], realmId);
      case "channels":
        // Channel names show in message records.
        return this.each([this.serverSettings, this.registerChannels, this.messageRecords, this.channelLookups, this.channelRecipients], realmId);
      case "subscriptions":
        return this.each([this.registerChannels, this.channelRecipients, this.subscriptionRows], realmId);
      case "alertWords":
        return this.each([this.channelRecipients], realmId);
      case "statuses":
        return this.each([this.registerStatuses], realmId);
      case "emoji":
        return this.each([this.registerEmoji], realmId);
      case "groups":
        return this.each([this.registerGroups, this.groupsContaining], realmId);
      case "sessions":
        return this.each([this.sessions], realmId);
      case "messages":
        // Every send lands here: clearing everything is O(1), a per-realm sweep is not.
        return this.maxMessageIds.flushAll();
      case "messageRecords":
        if (change.messageIds !== undefined) {
          this.messageFacts.flushKeys(change.messageIds);
          return this.messageRecords.flushKeys(change.messageIds);
        }
        return this.each([this.messageRecords, this.messageFacts], realmId);
      case "linkifiers":
        // Linkifiers show in message records (rendered topic links).
        return this.each([this.messageRecords, this.linkifiers], realmId);
      case "everything":
        return this.each(this.all, realmId);
    }
  }

  private each(caches: Array<{ flushRealm(id: number): void; flushAll(): void }>, realmId: number | undefined): void {
    for (const cache of caches) {
      if (realmId === undefined) cache.flushAll();
      else cache.flushRealm(realmId);
    }
  }

  /**
   * SQLite on a file: the WAL's commit counter, which shows other processes' commits
   * (db/wal-commits.ts); `onChange` runs when one is noticed, before the caches flush.
   */
  watchSqlite(walCommits: ExternalWrites, onChange: () => void = () => undefined): void {
    this.external = {
      changed: () => {
        if (!walCommits.changed()) return false;
        onChange();
        return true;
      },
    };
  }

  /** PostgreSQL: `changed` answers from the LISTEN connection (see postgres-notify.ts). */
  watchExternal(external: ExternalWrites): void {
    this.external = external;
  }

  /**
   * Called first on every request: flushes everything when another process wrote. Checked
   * once per turn of the event loop: every request that starts in this turn was received
   * before the turn began, so a commit the check does not see finished after those requests
   * were sent and they may answer from before it (as if they had run a moment earlier).
   * Under load one check serves the whole batch of requests a turn brings.
   */
  checkExternalWrites(): void {
    if (this.checkedThisTurn) return;
    this.checkedThisTurn = true;
    setImmediate(this.endTurn);
    if (this.external?.changed()) this.flushAll();
  }

  private checkedThisTurn = false;
  private readonly endTurn = () => {
    this.checkedThisTurn = false;
  };

  flushRealm(realmId: number): void {
    this.each(this.all, realmId);
  }

  flushAll(): void {
    this.each(this.all, undefined);
  }
}
