/** A user's flag bits on their per-user message rows; long id lists run in chunks. */
import { sql } from "kysely";
import { chunked } from "../chunks.js";
import type { Queryable } from "../tx.js";

/** Sets (adding) or clears one flag bit on the user's rows for these messages. */
export async function updateFlagBit(db: Queryable, userId: number, messageIds: readonly number[], bit: number, adding: boolean): Promise<void> {
  const flags = adding ? sql<number>`flags | ${sql.lit(bit)}` : sql<number>`flags & ${sql.lit(~bit)}`;
  for (const chunk of chunked(messageIds)) {
    await db.updateTable("user_messages").set({ flags }).where("user_id", "=", userId).where("message_id", "in", chunk).execute();
  }
}
