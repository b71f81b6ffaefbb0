/**
 * realm_user_settings_defaults (event type "realm_user_settings_defaults"): the settings
 * a new account starts with. Parley has no per-realm defaults yet, so these are
 * upstream's defaults (the stored settings' column defaults included): the same for every
 * registration, serialized once and spliced in (whatever reads it gets its own copy).
 */
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES, FIXED_SETTING_VALUES } from "../../lib/settings.js";
import { EmailVisibility } from "../../lib/roles.js";
import { RawJson, setRaw } from "./raw-json.js";
import type { StateFetcher } from "./types.js";

const DEFAULTS = new RawJson([
  Buffer.from(
    JSON.stringify({
      ...FIXED_SETTING_VALUES,
      default_language: "en",
      enable_drafts_synchronization: true,
      presence_enabled: true,
      email_address_visibility: EmailVisibility.EVERYONE,
      emojiset_choices: EMOJISET_CHOICES,
      available_notification_sounds: AVAILABLE_NOTIFICATION_SOUNDS,
    }),
  ),
]);

export const fetchUserSettingsDefaultsState: StateFetcher = async (_sc, state) => {
  setRaw(state, "realm_user_settings_defaults", DEFAULTS);
};
