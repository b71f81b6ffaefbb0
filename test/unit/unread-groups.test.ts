/**
 * aggregateGroups: unread messages grouped by the database merge into upstream's
 * unread_msgs exactly as the same messages one by one would (aggregateUnread).
 */
import { describe, expect, it } from "vitest";
import { aggregateGroups, aggregateUnread, type RawUnread, type UnreadGroup } from "../../src/events/initial-state/unread-model.js";

const rest = { mentions: [3], count: 9, old_unreads_missing: false };

function oneByOne(groups: UnreadGroup[], emptyTopicName: string | null) {
  const raw: RawUnread = { entries: new Map(), mentions: new Set(rest.mentions), count: rest.count, oldUnreadsMissing: false };
  for (const g of groups) for (const id of g.ids) raw.entries.set(id, g.entry);
  return aggregateUnread(raw, emptyTopicName);
}

describe("aggregateGroups", () => {
  const groups = (): UnreadGroup[] => [
    // Ascending first ids, as the caller sorts them; topics differ only by case, a DM
    // conversation comes in two groups (one per sender), ids interleave across groups.
    { entry: { kind: "stream", stream_id: 7, topic: "Plans" }, ids: [1, 5, 9] },
    { entry: { kind: "pm", other_user_id: 4 }, ids: [2, 8] },
    { entry: { kind: "stream", stream_id: 7, topic: "plans" }, ids: [3, 6] },
    { entry: { kind: "stream", stream_id: 7, topic: "" }, ids: [4] },
    { entry: { kind: "huddle", user_ids_string: "1,4,6" }, ids: [7] },
    { entry: { kind: "pm", other_user_id: 4 }, ids: [10] },
    { entry: { kind: "stream", stream_id: 2, topic: "General chat" }, ids: [11] },
    { entry: { kind: "stream", stream_id: 7, topic: "general chat" }, ids: [12] },
  ];

  it("merges groups of one conversation, the topic named by its oldest message, ids ascending", () => {
    const api = aggregateGroups(groups(), rest, null);
    expect(api.streams).toEqual([
      { stream_id: 2, topic: "General chat", unread_message_ids: [11] },
      { stream_id: 7, topic: "", unread_message_ids: [4] },
      { stream_id: 7, topic: "general chat", unread_message_ids: [12] },
      { stream_id: 7, topic: "Plans", unread_message_ids: [1, 3, 5, 6, 9] },
    ]);
    expect(api.pms).toEqual([{ other_user_id: 4, sender_id: 4, unread_message_ids: [2, 8, 10] }]);
    expect(api.huddles).toEqual([{ user_ids_string: "1,4,6", unread_message_ids: [7] }]);
    expect(api).toEqual(oneByOne(groups(), null));
  });

  it("the empty topic joins its display name's conversation", () => {
    const api = aggregateGroups(groups(), rest, "General chat");
    expect(api.streams.filter((s) => s.stream_id === 7).map((s) => [s.topic, s.unread_message_ids])).toEqual([
      ["General chat", [4, 12]],
      ["Plans", [1, 3, 5, 6, 9]],
    ]);
    expect(api).toEqual(oneByOne(groups(), "General chat"));
  });
});
