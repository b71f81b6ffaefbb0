/**
 * POST /register as a client opening a session: every event type, rendered Markdown. The
 * callers take turns among REGISTER_USERS members (seed.ts: registerCallers), each
 * subscribed to CHANNELS_PER_REGISTERING_USER of the realm's channels plus the everyone
 * channel, with those channels' history and a few or many unread messages
 * (register-history.ts), so the per-user queue limits (creations per minute, queues per
 * user) are never what is measured.
 * The lean client sends them: autocannon parses every answer (627 KB at 1k users, 3.6 MB at
 * 10k) and was the limit (see closed-loop.ts).
 */
import { form } from "../http-client.js";
import { runLoad } from "../load.js";
import type { Row } from "../row.js";
import { seedRegisterHistory } from "../register-history.js";
import { registerCallers } from "../seed.js";
import { withServerCpu } from "../server-cpu.js";

/** Every event type, rendered Markdown, as a current client (also used by register-statements.ts). */
export const BODY = form({
  apply_markdown: "true",
  slim_presence: "true",
  client_capabilities: JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: true, stream_typing_notifications: true, user_settings_object: true }),
});

export const registerRows: Row[] = [1000, 10_000].map((users) => ({
  name: "POST /register (100 channels)",
  users,
  shape: "POST",
  client: "lean",
  seed: seedRegisterHistory,
  run: (env) => withServerCpu(env.pid, (measuring) => runLoad(env.port, { method: "POST", path: "/api/v1/register", body: BODY, auth: registerCallers(env.realm), client: "lean" }, measuring)),
}));
