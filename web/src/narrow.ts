/**
 * A narrow: what the message list shows. A channel, one topic of a channel, or a direct
 * conversation (the other participants; empty for messages to oneself). Each has a key
 * (for caches and the URL hash) and the API's narrow terms.
 */
import type { Message } from "./types.js";

export type Narrow =
  | { kind: "channel"; streamId: number }
  | { kind: "topic"; streamId: number; topic: string }
  | { kind: "dm"; userIds: number[] };

export function dmNarrow(userIds: number[], me: number): Narrow {
  return { kind: "dm", userIds: [...new Set(userIds)].filter((id) => id !== me).sort((a, b) => a - b) };
}

export function narrowKey(n: Narrow): string {
  if (n.kind === "channel") return `channel/${n.streamId}`;
  if (n.kind === "topic") return `topic/${n.streamId}/${encodeURIComponent(n.topic)}`;
  return `dm/${n.userIds.join(",")}`;
}

/** The inverse of narrowKey (from the URL hash); undefined for anything else. */
export function parseNarrowKey(key: string): Narrow | undefined {
  const [kind, a, b] = key.split("/");
  if (kind === "channel" && /^\d+$/.test(a ?? "")) return { kind, streamId: Number(a) };
  if (kind === "topic" && /^\d+$/.test(a ?? "") && b !== undefined) {
    try {
      return { kind, streamId: Number(a), topic: decodeURIComponent(b) };
    } catch {
      return undefined;
    }
  }
  if (kind === "dm" && /^(\d+(,\d+)*)?$/.test(a ?? "")) return { kind, userIds: a ? a.split(",").map(Number) : [] };
  return undefined;
}

export function apiNarrow(n: Narrow, me: number): object[] {
  if (n.kind === "channel") return [{ operator: "channel", operand: n.streamId }];
  if (n.kind === "topic") return [{ operator: "channel", operand: n.streamId }, { operator: "topic", operand: n.topic }];
  return [{ operator: "dm", operand: n.userIds.length ? n.userIds : [me] }];
}

export function sameTopic(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The direct-conversation participants of a message, less the current user. */
export function dmUserIds(m: Message, me: number): number[] {
  if (!Array.isArray(m.display_recipient)) return [];
  return m.display_recipient.map((r) => r.id).filter((id) => id !== me).sort((a, b) => a - b);
}

export function messageInNarrow(m: Message, n: Narrow, me: number): boolean {
  if (n.kind === "channel") return m.type === "stream" && m.stream_id === n.streamId;
  if (n.kind === "topic") return m.type === "stream" && m.stream_id === n.streamId && sameTopic(m.subject, n.topic);
  return m.type === "private" && dmUserIds(m, me).join(",") === n.userIds.join(",");
}
