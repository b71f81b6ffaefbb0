/**
 * Presence rows → API presence entries (spec 2.4): modern `{active_timestamp,
 * idle_timestamp}` keyed by user id, or legacy `{aggregated, website}` keyed by API email.
 * Missing times default to the user's join date, as upstream.
 */
import { LEGACY_ACTIVE_WINDOW_SECONDS, LEGACY_EVENT_ACTIVITY_OFFSET_SECONDS } from "../lib/presence.js";

export interface ModernPresence {
  active_timestamp: number;
  idle_timestamp: number;
}

export interface LegacyClientPresence {
  client: "website";
  status: "active" | "idle";
  timestamp: number;
  pushable: false;
}

export interface LegacyPresence {
  aggregated: { client: "website"; status: "active" | "idle"; timestamp: number };
  website: LegacyClientPresence;
}

export interface PresenceTimes {
  last_active_time: number | null;
  last_connected_time: number | null;
  date_joined: number;
}

export function toModernPresence(row: PresenceTimes): ModernPresence {
  return {
    active_timestamp: row.last_active_time ?? row.date_joined,
    idle_timestamp: row.last_connected_time ?? row.date_joined,
  };
}

/** Legacy entry for polls: active when the last activity is at most two minutes old. */
export function toLegacyPresence(row: PresenceTimes, nowSeconds: number): LegacyPresence {
  const { active_timestamp: active, idle_timestamp: connected } = toModernPresence(row);
  const isActive = nowSeconds - active <= LEGACY_ACTIVE_WINDOW_SECONDS;
  const status = isActive ? "active" : "idle";
  const timestamp = isActive ? active : connected;
  return {
    aggregated: { client: "website", status, timestamp },
    website: { client: "website", status, timestamp, pushable: false },
  };
}

/** Legacy entry for presence events: active when activity is within 70 s of the last connection. */
export function toLegacyEventPresence(row: PresenceTimes): LegacyClientPresence {
  const { active_timestamp: active, idle_timestamp: connected } = toModernPresence(row);
  const isActive = active + LEGACY_EVENT_ACTIVITY_OFFSET_SECONDS >= connected;
  return { client: "website", status: isActive ? "active" : "idle", timestamp: isActive ? active : connected, pushable: false };
}
