/** custom_profile_fields and custom_profile_field_types (event type "custom_profile_fields"). */
import { listProfileFields } from "../../db/queries/custom-profile-fields.js";
import { toApiProfileField } from "../../lib/custom-profile-fields.js";
import type { StateContext, StateFetcher } from "./types.js";
import { loadOnce } from "./shared.js";

/** The realm's profile fields (also read by realm_users), cached per realm: shared, never change them. */
export const profileFieldsOf = (sc: StateContext) =>
  loadOnce(sc, "profile_fields", () => sc.ctx.caches.registerProfileFields.get(sc.realm.id, () => listProfileFields(sc.ctx.db, sc.realm.id)));

/** Upstream's field type catalogue. */
export const CUSTOM_PROFILE_FIELD_TYPES = {
  SHORT_TEXT: { id: 1, name: "Text (short)" },
  LONG_TEXT: { id: 2, name: "Text (long)" },
  SELECT: { id: 3, name: "List of options" },
  DATE: { id: 4, name: "Date picker" },
  URL: { id: 5, name: "Link" },
  USER: { id: 6, name: "Person picker" },
  EXTERNAL_ACCOUNT: { id: 7, name: "External account" },
  PRONOUNS: { id: 8, name: "Pronouns" },
} as const;

export const fetchCustomProfileFieldState: StateFetcher = async (sc, state) => {
  const fields = await profileFieldsOf(sc);
  state.custom_profile_fields = [...fields].sort((a, b) => a.order - b.order || a.id - b.id).map(toApiProfileField);
  state.custom_profile_field_types = CUSTOM_PROFILE_FIELD_TYPES;
};
