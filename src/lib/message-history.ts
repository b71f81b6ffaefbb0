/**
 * GET /messages/{id}/history snapshots (spec 2.8, upstream fill_edit_history_entries):
 * the message's state after each edit, oldest first, the first being the original.
 */
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { editsForMessages } from "../db/queries/messages.js";
import { highlightHtmlDifferences } from "./html-diff.js";
import { accessMessage } from "./message-access.js";
import { displayTopic } from "./topics.js";

export async function messageHistory(db: Queryable, user: User, realm: Realm, messageId: number, allowEmptyTopicName: boolean): Promise<Array<Record<string, unknown>>> {
  const { message } = await accessMessage(db, user, messageId);
  const edits = await editsForMessages(db, realm.id, [message.id]);
  const topicOut = (t: string) => (message.channel_id !== null ? displayTopic(t, realm, allowEmptyTopicName) : t);
  // Walk back from the current state, newest edit first.
  let content = message.content;
  let rendered = message.rendered_content;
  let topic = message.topic;
  const snapshots: Array<Record<string, unknown>> = [];
  for (const e of [...edits].reverse()) {
    const snap: Record<string, unknown> = { content, rendered_content: rendered, timestamp: e.timestamp, topic: topicOut(topic), user_id: e.user_id };
    if (e.prev_topic !== null) {
      topic = e.prev_topic;
      snap.prev_topic = topicOut(e.prev_topic);
    }
    if (e.prev_content !== null) {
      snap.prev_content = e.prev_content;
      snap.prev_rendered_content = e.prev_rendered_content;
      snap.content_html_diff = highlightHtmlDifferences(e.prev_rendered_content ?? "", rendered);
      content = e.prev_content;
      rendered = e.prev_rendered_content ?? "";
    }
    if (e.prev_channel_id !== null) {
      snap.prev_stream = e.prev_channel_id;
      snap.stream = e.channel_id;
    }
    snapshots.push(snap);
  }
  snapshots.push({ content, rendered_content: rendered, timestamp: message.date_sent, topic: topicOut(topic), user_id: message.sender_id });
  return snapshots.reverse();
}
