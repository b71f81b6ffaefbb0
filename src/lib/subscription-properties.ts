/**
 * The per-channel settings a subscriber changes (upstream update_subscription_properties_backend):
 * which properties exist, how their values are checked, and which column holds each.
 */
import { ApiError } from "../errors.js";

export const SUBSCRIPTION_PROPERTIES = [
  "color",
  "in_home_view",
  "is_muted",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "pin_to_top",
  "wildcard_mentions_notify",
] as const;
export type SubscriptionProperty = (typeof SUBSCRIPTION_PROPERTIES)[number];

/** Columns of the subscriptions table that properties are stored in. */
export type SubscriptionColumn = Exclude<SubscriptionProperty, "in_home_view">;

export function isSubscriptionProperty(name: string): name is SubscriptionProperty {
  return (SUBSCRIPTION_PROPERTIES as readonly string[]).includes(name);
}

const HEX_COLOR = /^#([a-fA-F0-9]{3,6})$/;

/** Checks a value for its property with upstream's messages (named after the property). */
export function checkSubscriptionValue(property: SubscriptionProperty, value: boolean | string): boolean | string {
  if (property === "color") {
    if (typeof value !== "string") throw new ApiError(`${property} is not a string`);
    if (!HEX_COLOR.test(value)) throw new ApiError(`${property} is not a valid hex color code`);
    return value;
  }
  if (typeof value !== "boolean") throw new ApiError(`${property} is not a boolean`);
  return value;
}

/**
 * The column and stored value for a change: the legacy `in_home_view` is the negation of
 * `is_muted`, which is what the database keeps.
 */
export function storedSubscriptionValue(property: SubscriptionProperty, value: boolean | string): { column: SubscriptionColumn; value: boolean | string } {
  if (property === "in_home_view") return { column: "is_muted", value: !(value as boolean) };
  return { column: property, value };
}
