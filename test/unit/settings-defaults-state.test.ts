/**
 * realm_user_settings_defaults is serialized once for every registration: each state that
 * reads it gets its own copy, so a change to one (an event applied) never shows in another.
 */
import { describe, expect, it } from "vitest";
import { fetchUserSettingsDefaultsState } from "../../src/events/initial-state/user-settings-defaults.js";
import { serializeState } from "../../src/events/initial-state/raw-json.js";
import type { State, StateContext } from "../../src/events/initial-state/types.js";

const fetchInto = async (): Promise<State> => {
  const state: State = {};
  await fetchUserSettingsDefaultsState({} as StateContext, state);
  return state;
};

describe("realm_user_settings_defaults", () => {
  it("is upstream's defaults, spliced in serialized, and each reader's own copy", async () => {
    const [a, b] = [await fetchInto(), await fetchInto()];
    const serialized = JSON.parse(`{${Buffer.concat(serializeState({}, b)).toString()}}`) as State;
    const read = a.realm_user_settings_defaults as Record<string, unknown>;
    expect(read).toEqual(serialized.realm_user_settings_defaults);
    expect(read).toMatchObject({ default_language: "en", enable_drafts_synchronization: true, presence_enabled: true });
    expect(Array.isArray(read.emojiset_choices)).toBe(true);
    read.default_language = "de";
    (read.emojiset_choices as unknown[]).length = 0;
    const again = (await fetchInto()).realm_user_settings_defaults as Record<string, unknown>;
    expect(again.default_language).toBe("en");
    expect((again.emojiset_choices as unknown[]).length).toBeGreaterThan(0);
  });
});
