/**
 * Cheap scan of raw content for the names it may reference, so callers can
 * load just those rows before rendering. May over-report (it does not know
 * about code blocks); never under-reports.
 */
import { STREAM_WILDCARDS, TOPIC_WILDCARD } from "./mentions.js";

const USER_RE = /@_?\*\*([^*]+)\*\*/g;
const GROUP_RE = /@_?\*([^*]+)\*/g;
const CHANNEL_RE = /#\*\*([^*]+)\*\*/g;
const ID_SYNTAX_RE = /^(.+)?\|(\d+)$/s;

export function collectReferences(content: string): {
  userNames: string[];
  userIds: number[];
  groupNames: string[];
  channelNames: string[];
} {
  const userNames = new Set<string>();
  const userIds = new Set<number>();
  const groupNames = new Set<string>();
  const channelNames = new Set<string>();
  if (content.includes("@")) {
    for (const m of content.matchAll(USER_RE)) {
      const text = m[1];
      if (STREAM_WILDCARDS.has(text) || text === TOPIC_WILDCARD) continue;
      const id = ID_SYNTAX_RE.exec(text);
      if (id) {
        userIds.add(Number(id[2]));
        if (id[1]) userNames.add(id[1]);
      } else {
        userNames.add(text);
      }
    }
    for (const m of content.matchAll(GROUP_RE)) groupNames.add(m[1]);
  }
  if (content.includes("#**")) {
    for (const m of content.matchAll(CHANNEL_RE)) {
      channelNames.add(m[1]);
      const gt = m[1].indexOf(">");
      if (gt > 0) channelNames.add(m[1].slice(0, gt));
    }
  }
  return {
    userNames: [...userNames],
    userIds: [...userIds],
    groupNames: [...groupNames],
    channelNames: [...channelNames],
  };
}
