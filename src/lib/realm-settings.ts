/**
 * The organization settings PATCH /realm can change: one entry per setting, naming its
 * parameter parser, how a value is checked, the realm column it is stored in, the value
 * clients see (register's `realm_<name>`, the event's `value`) and the event style
 * upstream uses for it. Add a setting by adding an entry.
 */
import { ApiError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { accessChannelById } from "./channels.js";

/** A raw parameter parser (from the view's parameter layer), kept abstract here. */
export type SettingParser = "bool" | "nonNegativeInt" | "int";

export interface RealmSetting {
  parser: SettingParser;
  column: keyof Realm;
  /** Checks a parsed value and returns the stored column value. */
  check(db: Queryable, actor: User, value: unknown): Promise<number | null>;
  /** The API value of a stored column value. */
  toApi(stored: number | null): unknown;
  /** `update` {property, value}, or `update_dict` {property: "default", data} (upstream's edit settings). */
  event: "update" | "update_dict";
}

const flag = (column: keyof Realm, event: RealmSetting["event"] = "update"): RealmSetting => ({
  parser: "bool",
  column,
  check: async (_db, _actor, value) => (value ? 1 : 0),
  toApi: (stored) => stored === 1,
  event,
});

export const REALM_SETTINGS: Record<string, RealmSetting> = {
  allow_message_editing: flag("allow_message_editing", "update_dict"),
  waiting_period_threshold: {
    parser: "nonNegativeInt",
    column: "waiting_period_threshold",
    check: async (_db, _actor, value) => value as number,
    toApi: (stored) => stored,
    event: "update",
  },
  /** A private channel the caller can access, or -1 for none. */
  moderation_request_channel_id: {
    parser: "int",
    column: "moderation_request_channel_id",
    async check(db, actor, value) {
      const id = value as number;
      if (id < 0) return null;
      const { channel } = await accessChannelById(db, actor, id);
      if (!channel.invite_only) throw new ApiError("Moderation request channel must be private.");
      return channel.id;
    },
    toApi: (stored) => stored ?? -1,
    event: "update",
  },
};
