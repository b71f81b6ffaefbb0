/**
 * Rows several state families read (the caller's subscriptions and user topics, the
 * realm's profile fields): loaded once per /register instead of once per family.
 */
import type { StateContext } from "./types.js";

export function loadOnce<T>(sc: StateContext, key: string, load: () => Promise<T>): Promise<T> {
  if (!sc.shared) return load();
  let pending = sc.shared.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = load();
    sc.shared.set(key, pending);
  }
  return pending;
}
