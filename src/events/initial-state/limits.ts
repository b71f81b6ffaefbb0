/** Server limits reported by /register. */
export const CHANNEL_LIMITS = {
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
} as const;

/** Typing-notice timing clients follow (upstream defaults, milliseconds). */
export const typingIntervals = {
  server_typing_started_expiry_period_milliseconds: 45_000,
  server_typing_stopped_wait_period_milliseconds: 12_000,
  server_typing_started_wait_period_milliseconds: 30_000,
} as const;

/** Most drafts /register returns (upstream MAX_DRAFTS_IN_REGISTER_RESPONSE). */
export const MAX_DRAFTS_IN_REGISTER_RESPONSE = 1000;

/** Most unread messages /register reports (upstream MAX_UNREAD_MESSAGES); older ones are left out. */
export const MAX_UNREAD_MESSAGES = 50_000;

/** Most recent direct messages recent_private_conversations is computed from (upstream's limit). */
export const RECENT_CONVERSATIONS_LIMIT = 1000;
