/**
 * Personal-settings events on /register state: `user_settings` updates the
 * user_settings object and, for clients registered without user_settings_object, the
 * legacy top-level key; the legacy `update_display_settings` and
 * `update_global_notifications` events update the top-level keys.
 */
type State = Record<string, any>;
type Event = Record<string, any>;

export function applyUserSettings(state: State, e: Event): void {
  if (e.op !== "update") return;
  if (state.user_settings) state.user_settings[e.property] = e.value;
  // Legacy top-level copies exist only for clients without user_settings_object.
  if (e.property in state && e.property !== "user_settings") state[e.property] = e.value;
  // The server forgets a user's drafts when synchronization is turned off.
  if (e.property === "enable_drafts_synchronization" && e.value === false && state.drafts) state.drafts = [];
}

export function applyLegacyDisplaySettings(state: State, e: Event): void {
  if (e.setting_name in state) state[e.setting_name] = e.setting;
}

export function applyLegacyNotificationSettings(state: State, e: Event): void {
  if (e.notification_name in state) state[e.notification_name] = e.setting;
}
