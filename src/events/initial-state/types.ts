/** What each initial-state family gets: the caller, their realm and the /register options. */
import type { AppContext } from "../../context.js";
import type { Realm, User } from "../../db/schema.js";

export interface RegisterOptions {
  /** Types whose state to fetch (fetch_event_types, else event_types); null: all. */
  fetchEventTypes: readonly string[] | null;
  applyMarkdown: boolean;
  clientHashavatar: boolean;
  slimPresence: boolean;
  includeSubscribers: boolean;
  clientCapabilities: Readonly<Record<string, boolean>>;
  /** presence_history_limit_days; undefined: the default window. */
  presenceHistoryLimitDays?: number;
}

export interface StateContext {
  ctx: AppContext;
  realm: Realm;
  user: User;
  opts: RegisterOptions;
  /** The realm's host (dummy emails). */
  host: string;
  /** UNIX seconds at the start of the fetch. */
  now: number;
  /** Rows several families read, loaded once per fetch (see loadOnce). */
  shared?: Map<string, Promise<unknown>>;
}

export type State = Record<string, unknown>;
export type StateFetcher = (sc: StateContext, state: State) => Promise<void>;
