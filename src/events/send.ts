/** sendEventOnCommit: the one way actions publish; nothing is sent if the transaction rolls back. */
import type { AppContext } from "../context.js";
import type { Tx } from "../db/tx.js";
import type { EventAudience } from "./publisher.js";
import type { ChatEvent } from "./types.js";

export function sendEventOnCommit(
  tx: Tx,
  ctx: AppContext,
  realmId: number,
  event: ChatEvent,
  userIds: readonly number[],
  /** Extra recipients by rule, e.g. `{ publicChannelId }` for messages in public channels. */
  audience?: EventAudience,
): void {
  tx.onCommit(() => ctx.events.publish(realmId, event, userIds, audience));
}
