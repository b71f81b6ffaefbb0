/**
 * The event bus between actions (which publish after commit) and delivery (event
 * queues). In-process by default; a multi-node deployment puts a broker behind the
 * same interface.
 */
import type { ChatEvent } from "./types.js";

export interface PublishedEvent {
  realmId: number;
  event: ChatEvent;
  /** Who receives the event. Choosing them is a security decision made by the action. */
  userIds: readonly number[];
}

export type EventListener = (published: PublishedEvent) => void;

export interface EventPublisher {
  publish(realmId: number, event: ChatEvent, userIds: readonly number[]): void;
  subscribe(listener: EventListener): () => void;
}

export class InProcessEventBus implements EventPublisher {
  private listeners = new Set<EventListener>();

  publish(realmId: number, event: ChatEvent, userIds: readonly number[]): void {
    if (userIds.length === 0) return;
    const published = { realmId, event, userIds };
    for (const listener of this.listeners) listener(published);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
