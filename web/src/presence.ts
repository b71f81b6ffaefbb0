/**
 * Reports our presence every 60 s (upstream's interval): "active" while the page is visible,
 * "idle" when hidden. The answer carries everyone's presence (slim format).
 */
import { api } from "./api.js";
import type { Controller } from "./controller.js";
import type { Presence } from "./types.js";

const EVERY_MS = 60000;

export function reportPresence(ctl: Controller): void {
  const send = async () => {
    if (!ctl.ready) return;
    const status = document.visibilityState === "visible" ? "active" : "idle";
    try {
      const res = await api<{ presences?: Record<string, Presence>; server_timestamp?: number }>("POST", "/users/me/presence", { status, new_user_input: status === "active", slim_presence: true });
      if (res.presences) ctl.store.presence = new Map(Object.entries(res.presences).map(([id, p]) => [Number(id), p]));
      if (res.server_timestamp) ctl.store.clockSkew = res.server_timestamp - Date.now() / 1000;
      ctl.store.changed();
    } catch {
      // The next report tries again; the event queue shows connection trouble.
    }
  };
  setInterval(send, EVERY_MS);
  document.addEventListener("visibilitychange", send);
  // The first report as soon as the state is loaded.
  const wait = setInterval(() => {
    if (ctl.ready) {
      clearInterval(wait);
      void send();
    }
  }, 200);
}
