/** Shaping a channel's topic list as upstream's generate_topic_history_from_db_rows. */
import type { Realm } from "../db/schema.js";
import type { TopicRow } from "../db/queries/channel-topics.js";
import { displayTopic } from "./topics.js";

/**
 * Spellings of one topic that differ only in case merge into one entry named with the
 * newest spelling; the list is newest first.
 */
export function topicHistory(rows: readonly TopicRow[], realm: Pick<Realm, "empty_topic_display_name">, allowEmpty: boolean): Array<{ name: string; max_id: number }> {
  const byName = new Map<string, TopicRow>();
  for (const row of [...rows].sort((a, b) => a.max_id - b.max_id)) byName.set(row.topic.toLowerCase(), row);
  return [...byName.values()]
    .sort((a, b) => b.max_id - a.max_id)
    .map((row) => ({ name: displayTopic(row.topic, realm, allowEmpty), max_id: row.max_id }));
}
