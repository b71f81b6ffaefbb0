/**
 * realm_user_settings_defaults (event type "realm_user_settings_defaults"): the settings
 * a new account starts with. Parley has no per-realm defaults yet, so these are
 * upstream's defaults (the stored settings' column defaults included).
 */
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES, FIXED_SETTING_VALUES } from "../../lib/settings.js";
import { EmailVisibility } from "../../lib/roles.js";
import type { StateFetcher } from "./types.js";

export const fetchUserSettingsDefaultsState: StateFetcher = async (_sc, state) => {
  state.realm_user_settings_defaults = {
    ...FIXED_SETTING_VALUES,
    default_language: "en",
    enable_drafts_synchronization: true,
    presence_enabled: true,
    email_address_visibility: EmailVisibility.EVERYONE,
    emojiset_choices: EMOJISET_CHOICES.map((c) => ({ ...c })),
    available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
  };
};
