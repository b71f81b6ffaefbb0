/**
 * Events as delivered by GET /events (each also gets an `id` when queued).
 * Families add their event shapes to this union as they are built.
 */
export type ChatEvent = { type: string; [key: string]: unknown };
