/** Options of an event queue allocated directly on the QueueManager (as POST /register's defaults would give). */
import type { QueueOptions } from "../../src/events/queues.js";

export const queueOptions = (userId: number, realmId: number, changes: Partial<QueueOptions> = {}): QueueOptions => ({
  userId,
  realmId,
  eventTypes: null,
  narrow: [],
  applyMarkdown: true,
  clientHashavatar: false,
  slimPresence: false,
  allPublicStreams: false,
  clientCapabilities: {},
  lifespanSeconds: 0,
  clientName: "test",
  emptyTopicDisplayName: "general chat",
  ...changes,
});
