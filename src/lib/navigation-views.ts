/** Navigation views (spec 2.11, 4.16): built-in fragments, messages and the API record. */
import type { NavigationView } from "../db/schema.js";
import { ResourceNotFoundError } from "../errors.js";

/** Views every client has; a row for one of them only overrides is_pinned. */
export const BUILT_IN_VIEW_FRAGMENTS: ReadonlySet<string> = new Set([
  "inbox",
  "recent",
  "feed",
  "drafts",
  "narrow/has/reaction/sender/me",
  "narrow/is/mentioned",
  "narrow/is/starred",
]);

export const BUILT_IN_NO_NAME = "Built-in views cannot have a custom name.";
export const CUSTOM_NEEDS_NAME = "Custom views must have a valid name.";
export const VIEW_EXISTS = "Navigation view already exists.";

/** HTTP 404 with code NOT_FOUND, as the spec says (upstream keeps BAD_REQUEST). */
export const viewNotFound = () => new ResourceNotFoundError("Navigation view does not exist.", "NOT_FOUND");

export interface ApiNavigationView {
  fragment: string;
  is_pinned: boolean;
  name: string | null;
}

export function toApiNavigationView(v: NavigationView): ApiNavigationView {
  return { fragment: v.fragment, is_pinned: v.is_pinned === 1, name: v.name };
}
