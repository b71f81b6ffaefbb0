/**
 * Bounds on list parameters, so a huge list gets a clear 400 instead of reaching the
 * database (too many SQL variables, expression trees too deep). README "Security and
 * limits" lists them.
 */
import { ApiError } from "../errors.js";

/** Items of any list parameter unless the parameter declares its own bound. */
export const MAX_LIST_ITEMS = 1000;
/** Message ids in one POST /messages/flags (the SQL runs in chunks). */
export const MAX_FLAG_MESSAGE_IDS = 100_000;
/** Terms of a narrow. */
export const MAX_NARROW_TERMS = 50;
/** Words of all `search` terms of a narrow together. */
export const MAX_SEARCH_WORDS = 100;

export const listTooLongMessage = (name: string, limit: number) => `${name} is too long (limit: ${limit} items)`;

/** Throws the 400 for a list longer than `limit`. */
export function checkListLength(list: readonly unknown[], name: string, limit = MAX_LIST_ITEMS): void {
  if (list.length > limit) throw new ApiError(listTooLongMessage(name, limit));
}
