/**
 * The channel history the register rows' callers have received, seeded in bulk through the
 * database layer before the server starts: HISTORY_MESSAGES messages over the channels they
 * follow, each with a user_messages row per caller and for the owner (who created the
 * channels), as a real member has one for every message sent to a channel while they were
 * subscribed. Most callers have read all but a few of them; one in ten stopped reading and
 * has every one unread. Without it the callers had no history at all, and what /register
 * reads per user (their message rows) was empty, unlike in any organization in use.
 */
import type { Kysely } from "kysely";
import type { DB } from "../src/db/schema.js";
import { FLAG_BITS } from "../src/lib/message-flags.js";
import { CHANNELS_PER_REGISTERING_USER, registerCallers, type BenchRealm } from "./seed.js";

export const HISTORY_MESSAGES = 2000;
const TOPICS_PER_CHANNEL = 10;
/** Rows per INSERT: 4 parameters each, under SQLite's limit of 32,766. */
const BATCH = 5000;

/** Unread messages of the k-th caller: all of them for one in ten, 0–99 for the others. */
export const unreadCountOf = (k: number): number => (k % 10 === 0 ? HISTORY_MESSAGES : (k * 7) % 100);

export function seedRegisterHistory(db: Kysely<DB>, realm: BenchRealm): Promise<void> {
  // One transaction: a commit per batch would wait for the disk a thousand times.
  return db.transaction().execute((tx) => seed(tx, realm));
}

async function seed(db: Kysely<DB>, realm: BenchRealm): Promise<void> {
  const callers = registerCallers(realm);
  const names = Array.from({ length: CHANNELS_PER_REGISTERING_USER }, (_, i) => `channel-${i}`);
  const channels = await db.selectFrom("channels").select(["id", "recipient_id"]).where("realm_id", "=", realm.realmId).where("name", "in", names).execute();
  const now = Math.floor(Date.now() / 1000);
  const ids: number[] = [];
  for (let start = 0; start < HISTORY_MESSAGES; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, HISTORY_MESSAGES - start) }, (_, j) => {
      const i = start + j;
      const channel = channels[i % channels.length];
      return {
        realm_id: realm.realmId,
        sender_id: callers[i % callers.length].id,
        recipient_id: channel.recipient_id!,
        channel_id: channel.id,
        topic: `topic ${Math.floor(i / channels.length) % TOPICS_PER_CHANNEL}`,
        content: `History message ${i}`,
        rendered_content: `<p>History message ${i}</p>`,
        date_sent: now - (HISTORY_MESSAGES - i) * 60,
      };
    });
    ids.push(...(await db.insertInto("messages").values(batch).returning("id").execute()).map((r) => r.id));
  }
  const readers = [...callers.map((c, k) => ({ id: c.id, unread: unreadCountOf(k) })), { id: realm.owner.id, unread: 0 }];
  let rows: Array<{ realm_id: number; user_id: number; message_id: number; flags: number }> = [];
  const flush = async () => {
    if (rows.length > 0) await db.insertInto("user_messages").values(rows).execute();
    rows = [];
  };
  for (const reader of readers) {
    for (let i = 0; i < ids.length; i++) {
      const own = callers[i % callers.length].id === reader.id;
      const read = own || i < ids.length - reader.unread;
      rows.push({ realm_id: realm.realmId, user_id: reader.id, message_id: ids[i], flags: read ? FLAG_BITS.read : 0 });
      if (rows.length === BATCH) await flush();
    }
  }
  await flush();
}
