/**
 * Event-test helpers: register a queue, read what it received, and verifyAction —
 * the consistency check that a client applying an action's events to its /register
 * state ends with what a fresh /register returns.
 */
import { expect } from "vitest";
import { applyEvents } from "../../src/events/apply.js";
import type { User } from "../../src/db/schema.js";
import { expectSuccess, type Params } from "./client.js";
import type { TestServer } from "./server.js";

/** Keys that differ between two registers by design. */
const VOLATILE = ["queue_id", "last_event_id", "server_timestamp", "presence_last_update_id", "result", "msg"];

export async function register(s: TestServer, user: User, params: Params = {}): Promise<Record<string, any>> {
  return expectSuccess(await s.api.post(user, "/register", params));
}

/** Events queued so far (non-blocking), acknowledging through `lastEventId`. */
export async function queuedEvents(s: TestServer, user: User, queueId: string, lastEventId = -1): Promise<Array<Record<string, any>>> {
  const body = expectSuccess(await s.api.get(user, "/events", { queue_id: queueId, last_event_id: lastEventId, dont_block: true }));
  return body.events;
}

export function withoutVolatile(state: Record<string, any>): Record<string, any> {
  const copy = structuredClone(state);
  for (const k of VOLATILE) delete copy[k];
  return copy;
}

/**
 * Registers `user`, runs the action, applies the events their queue received, and
 * asserts the result equals a fresh /register. Returns the events for shape checks.
 */
export async function verifyAction(
  s: TestServer,
  user: User,
  action: () => Promise<unknown>,
  registerParams: Params = {},
): Promise<Array<Record<string, any>>> {
  const state = await register(s, user, registerParams);
  await action();
  const events = await queuedEvents(s, user, state.queue_id, state.last_event_id);
  applyEvents(state, events as any, { includeSubscribers: registerParams.include_subscribers === true, userId: user.id });
  const fresh = await register(s, user, registerParams);
  expect(withoutVolatile(state)).toEqual(withoutVolatile(fresh));
  return events;
}
