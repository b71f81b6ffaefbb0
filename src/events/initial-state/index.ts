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
import { fetchRealmEmojiState } from "./realm-emoji.js";
import { fetchRecentConversationState } from "./recent-conversations.js";
import { fetchUnreadState } from "./unread.js";
import { fetchUserGroupState } from "./user-groups.js";
import { fetchLegacyDisplaySettingsState, fetchLegacyNotificationSettingsState, fetchUserSettingsState } from "./user-settings.js";
import { fetchUserSettingsDefaultsState } from "./user-settings-defaults.js";
import { fetchMutedTopicState, fetchUserTopicState } from "./user-topics.js";
import { fetchRealmBotState, fetchRealmUserState } from "./users.js";
import { fetchNavigationViewState } from "./navigation-views.js";
import { fetchPushDeviceState } from "./push-devices.js";
import { fetchReminderState, fetchScheduledMessageState } from "./scheduled-messages.js";

/** Event type → the state it keeps current. */
export const STATE_FAMILIES: ReadonlyArray<readonly [string, StateFetcher]> = [
  ["alert_words", fetchAlertWordState],
  ["custom_profile_fields", fetchCustomProfileFieldState],
  ["drafts", fetchDraftState],
  ["message", fetchMessageState],
  ["muted_topics", fetchMutedTopicState],
  ["navigation_view", fetchNavigationViewState],
  ["presence", fetchPresenceState],
  ["push_device", fetchPushDeviceState],
  ["realm", fetchRealmState],
  ["realm_bot", fetchRealmBotState],
  ["realm_emoji", fetchRealmEmojiState],
  ["realm_linkifiers", fetchLinkifierState],
  ["realm_user", fetchRealmUserState],
  ["realm_user_groups", fetchUserGroupState],
  ["realm_user_settings_defaults", fetchUserSettingsDefaultsState],
  ["recent_private_conversations", fetchRecentConversationState],
  ["stream", fetchStreamState],
  ["subscription", fetchSubscriptionState],
  ["update_display_settings", fetchLegacyDisplaySettingsState],
  ["update_global_notifications", fetchLegacyNotificationSettingsState],
  ["user_settings", fetchUserSettingsState],
  ["user_status", fetchUserStatusState],
  ["user_topic", fetchUserTopicState],
  ["scheduled_messages", fetchScheduledMessageState],
  ["reminders", fetchReminderState],
];

/** State needing several event types: [types, fetcher] (unread_msgs needs both message kinds, as upstream). */
const COMBINED_FAMILIES: ReadonlyArray<readonly [readonly string[], StateFetcher]> = [[["message", "update_message_flags"], fetchUnreadState]];

export async function fetchInitialState(context: StateContext): Promise<State> {
  const sc: StateContext = { ...context, shared: new Map() };
  const types = sc.opts.fetchEventTypes;
  const state: State = {
    chat_version: CHAT_VERSION,
    chat_feature_level: CHAT_FEATURE_LEVEL,
    chat_merge_base: CHAT_MERGE_BASE,
  };
  for (const [type, fetch] of STATE_FAMILIES) {
    if (types === null || types.includes(type)) await fetch(sc, state);
  }
  for (const [needed, fetch] of COMBINED_FAMILIES) {
    if (types === null || needed.every((t) => types.includes(t))) await fetch(sc, state);
  }
  return state;
}

export type { RegisterOptions, State, StateContext } from "./types.js";
