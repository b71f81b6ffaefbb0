/**
 * Reports our presence every 60 s (upstream's interval) and when the page is shown or
 * hidden: "active" while the page is visible, "idle" when hidden. The answer carries
 * everyone's presence (slim format), which replaces the store's.
 */
import { api } from "./api.js";
import type { Store } from "./store.js";
import type { Presence } from "./types.js";

const EVERY_MS = 60000;

export class PresenceReporter {
  private started = false;

  constructor(private readonly store: Store) {}

  /** From the first /register on; later calls (re-registrations) report once more. */
  start(): void {
    void this.report();
    if (this.started) return;
    this.started = true;
    setInterval(() => this.report(), EVERY_MS);
    document.addEventListener("visibilitychange", () => this.report());
  }

  private async report(): Promise<void> {
    const status = document.visibilityState === "visible" ? "active" : "idle";
    try {
      const res = await api<{ presences?: Record<string, Presence>; server_timestamp?: number }>("POST", "/users/me/presence", { status, new_user_input: status === "active", slim_presence: true });
      if (res.presences) this.store.presence = new Map(Object.entries(res.presences).map(([id, p]) => [Number(id), p]));
      if (res.server_timestamp) this.store.clockSkew = res.server_timestamp - Date.now() / 1000;
      this.store.changed();
    } catch {
      // The next report tries again; the event queue shows connection trouble.
    }
  }
}
