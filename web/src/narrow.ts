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

/** The inverse of narrowKey (from the URL hash), also taking upstream's links; undefined for anything else. */
export function parseNarrowKey(key: string): Narrow | undefined {
  if (key.startsWith("narrow/")) return parseUpstreamHash(key);
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

/**
 * Upstream's narrow links, which rendered messages carry (`#narrow/channel/1-general/topic/a.20b`,
 * `#narrow/dm/5-Bo`): their channel or topic, or direct conversation with one or more users.
 * Upstream encodes topics like percent-encoding with "." instead of "%".
 */
function parseUpstreamHash(hash: string): Narrow | undefined {
  const parts = hash.split("/").slice(1);
  const decode = (t: string) => {
    try {
      return decodeURIComponent(t.replace(/\.([0-9A-Fa-f]{2})/g, "%$1"));
    } catch {
      return undefined;
    }
  };
  const kind = parts[0];
  const id = /^(\d+)/.exec(parts[1] ?? "")?.[1];
  if ((kind === "channel" || kind === "stream") && id) {
    const topic = parts[2] === "topic" || parts[2] === "subject" ? decode(parts[3] ?? "") : undefined;
    return topic !== undefined ? { kind: "topic", streamId: Number(id), topic } : { kind: "channel", streamId: Number(id) };
  }
  if ((kind === "dm" || kind === "pm-with") && /^\d+(,\d+)*/.test(parts[1] ?? "")) {
    return { kind: "dm", userIds: /^\d+(,\d+)*/.exec(parts[1]!)![0].split(",").map(Number).sort((a, b) => a - b) };
  }
  return undefined;
}
