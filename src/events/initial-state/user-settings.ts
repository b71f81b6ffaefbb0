/**
 * user_settings (event type "user_settings"): every personal setting (stored ones from
 * the users row, upstream's defaults for the rest), plus timezone and the choices
 * clients offer. Clients without the user_settings_object capability also get the
 * legacy top-level keys (event types "update_display_settings" and
 * "update_global_notifications"), as upstream. No queries: the caller's row is loaded.
 */
import {
  AVAILABLE_NOTIFICATION_SOUNDS,
  DISPLAY_SETTINGS_LEGACY,
  EMOJISET_CHOICES,
  NOTIFICATION_SETTINGS_LEGACY,
  userSettingValues,
} from "../../lib/settings.js";
import type { StateContext, StateFetcher } from "./types.js";

const settingsObject = (sc: StateContext) => sc.opts.clientCapabilities.user_settings_object === true;

export const fetchUserSettingsState: StateFetcher = async (sc, state) => {
  state.user_settings = {
    ...userSettingValues(sc.user),
    emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })),
    timezone: sc.user.timezone,
    available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
  };
};

export const fetchLegacyDisplaySettingsState: StateFetcher = async (sc, state) => {
  if (settingsObject(sc)) return;
  const values = userSettingValues(sc.user);
  for (const name of DISPLAY_SETTINGS_LEGACY) state[name] = values[name];
  state.emojiset_choices = EMOJISET_CHOICES.map((c) => ({ ...c }));
  state.timezone = sc.user.timezone;
};

export const fetchLegacyNotificationSettingsState: StateFetcher = async (sc, state) => {
  if (settingsObject(sc)) return;
  const values = userSettingValues(sc.user);
  for (const name of NOTIFICATION_SETTINGS_LEGACY) state[name] = values[name];
  state.available_notification_sounds = [...AVAILABLE_NOTIFICATION_SOUNDS];
};
