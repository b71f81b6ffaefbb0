/**
 * The event bus between actions (which publish after commit) and delivery (event
 * queues). In-process by default; a multi-node deployment puts a broker behind the
 * same interface, so everything in a PublishedEvent is plain JSON.
 */
import type { ChatEvent } from "./types.js";

/**
 * Extra recipients beyond `userIds`, named by a rule the delivery side evaluates,
 * because they are not users but registered clients.
 */
export interface EventAudience {
  /**
   * The event is a `message` event in this public (not invite-only) channel: queues
   * registered with all_public_streams=true in the same realm also receive it (with
   * flags [] unless their user is among `userIds`).
   */
  publicChannelId?: number;
}

export interface PublishedEvent {
  realmId: number;
  event: ChatEvent;
  /** Who receives the event. Choosing them is a security decision made by the action. */
  userIds: readonly number[];
  /** Optional audience hint (see EventAudience); absent for almost every event. */
  audience?: EventAudience;
}

export type EventListener = (published: PublishedEvent) => void;

export interface EventPublisher {
  publish(realmId: number, event: ChatEvent, userIds: readonly number[], audience?: EventAudience): void;
  /** Listeners of events with recipients (event queues). */
  subscribe(listener: EventListener): () => void;
  /** Listeners of every event, even one nobody receives (caches: the change still happened). */
  subscribeAll(listener: EventListener): () => void;
}

export class InProcessEventBus implements EventPublisher {
  private listeners = new Set<EventListener>();
  private allListeners = new Set<EventListener>();

  publish(realmId: number, event: ChatEvent, userIds: readonly number[], audience?: EventAudience): void {
    const published: PublishedEvent = audience === undefined ? { realmId, event, userIds } : { realmId, event, userIds, audience };
    for (const listener of this.allListeners) listener(published);
    if (userIds.length === 0 && audience?.publicChannelId === undefined) return;
    for (const listener of this.listeners) listener(published);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  subscribeAll(listener: EventListener): () => void {
    this.allListeners.add(listener);
    return () => this.allListeners.delete(listener);
  }
}
