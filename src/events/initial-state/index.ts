/**
 * fetchInitialState: the /register state for the requested event types, one family
 * per file. Each family runs a constant number of queries, whatever the realm's size.
 */
import { CHAT_FEATURE_LEVEL, CHAT_MERGE_BASE, CHAT_VERSION } from "../../lib/server-version.js";
import { fetchCustomProfileFieldState } from "./custom-profile-fields.js";
import { fetchDraftState } from "./drafts.js";
import { fetchLinkifierState } from "./linkifiers.js";
import { fetchAlertWordState, fetchMessageState, fetchUserStatusState } from "./message.js";
import { fetchPresenceState } from "./presence.js";
import { fetchRealmState } from "./realm.js";
import { fetchStreamState, fetchSubscriptionState } from "./subscriptions.js";
import type { State, StateContext, StateFetcher } from "./types.js";
import { fetchMutedTopicState, fetchUserTopicState } from "./user-topics.js";
import { fetchRealmBotState, fetchRealmUserState } from "./users.js";

/** Event type → the state it keeps current. */
export const STATE_FAMILIES: ReadonlyArray<readonly [string, StateFetcher]> = [
  ["alert_words", fetchAlertWordState],
  ["custom_profile_fields", fetchCustomProfileFieldState],
  ["drafts", fetchDraftState],
  ["message", fetchMessageState],
  ["muted_topics", fetchMutedTopicState],
  ["presence", fetchPresenceState],
  ["realm", fetchRealmState],
  ["realm_bot", fetchRealmBotState],
  ["realm_linkifiers", fetchLinkifierState],
  ["realm_user", fetchRealmUserState],
  ["stream", fetchStreamState],
  ["subscription", fetchSubscriptionState],
  ["user_status", fetchUserStatusState],
  ["user_topic", fetchUserTopicState],
];

export async function fetchInitialState(sc: StateContext): Promise<State> {
  const types = sc.opts.fetchEventTypes;
  const state: State = {
    chat_version: CHAT_VERSION,
    chat_feature_level: CHAT_FEATURE_LEVEL,
    chat_merge_base: CHAT_MERGE_BASE,
  };
  for (const [type, fetch] of STATE_FAMILIES) {
    if (types === null || types.includes(type)) await fetch(sc, state);
  }
  return state;
}

export type { RegisterOptions, State, StateContext } from "./types.js";
