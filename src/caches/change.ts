/** What changed, as precisely as the source knows it; each kind flushes only what depends on it. */
export type Change =
  /** A realm row: the realm, its server_settings and its user lists (notification bot, spectators). */
  | { kind: "realm"; realmId?: number }
  /**
   * A user row (an API key, a role, a deactivation…): that user's auth entry (every auth
   * entry of the realm when the user is not named, e.g. new users) and the lists.
   */
  | { kind: "user"; realmId?: number; userId?: number }
  /** Channels: server_settings' web-public flag, the subscriber lists (new or deleted channels). */
  | { kind: "channels"; realmId?: number }
  /** Custom profile fields or values: the lists. */
  | { kind: "profile"; realmId?: number }
  /** Subscription rows (subscribe, unsubscribe, a personal setting): the subscriber lists. */
  | { kind: "subscriptions"; realmId?: number }
  /** User statuses: /register's user_status. */
  | { kind: "statuses"; realmId?: number }
  /** Custom emoji: /register's realm_emoji. */
  | { kind: "emoji"; realmId?: number }
  /** User groups, their members or subgroups: the realms' group data. */
  | { kind: "groups"; realmId?: number }
  /** Per-user message rows (a send, a deletion, a move): the highest message ids. */
  | { kind: "messages"; realmId?: number }
  /**
   * Messages' own rows (an edit, a move, a deletion, reactions, submessages): the cached
   * message records, those named or else the realm's.
   */
  | { kind: "messageRecords"; realmId?: number; messageIds?: number[] }
  /** The realm's linkifiers: the message records (topic links) and the sends' linkifiers. */
  | { kind: "linkifiers"; realmId?: number }
  /** Users' alert words: the sends' channel recipients (with their words). */
  | { kind: "alertWords"; realmId?: number }
  /** Session rows deleted (logout, a password change…): the session lookup. */
  | { kind: "sessions"; realmId?: number }
  /** Unknown: all of it. */
  | { kind: "everything"; realmId?: number };
