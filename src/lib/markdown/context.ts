/** Per-render state shared by the Markdown rules (kept in markdown-it's env). */
import type { CompiledLinkifier } from "./linkifiers.js";

export interface MarkdownLookups {
  /** Case-insensitive full-name match among the realm's active users. */
  usersByName(name: string): Array<{ id: number; full_name: string }>;
  userById(id: number): { id: number; full_name: string } | undefined;
  /** Named, non-deactivated user groups. */
  groupByName(name: string): { id: number; name: string } | undefined;
  channelByName(name: string): { id: number; name: string } | undefined;
  /** Linkifiers in order. */
  linkifiers: Array<{ id: number; pattern: string; url_template: string }>;
  /** e.g. "http://localhost:9991" */
  realmUrl: string;
  /** The sender's "translate emoticons" setting: ":)" → :smile: etc. Default false. */
  translateEmoticons?: boolean;
}

export interface RenderState {
  lookups: MarkdownLookups;
  linkifiers: CompiledLinkifier[];
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  streamWildcardMentioned: boolean;
  topicWildcardMentioned: boolean;
  /** Set while parsing the inline content of a block inside a quote. */
  inQuote: boolean;
}

export interface MarkdownEnv {
  parley: RenderState;
}

export function renderState(env: unknown): RenderState {
  return (env as MarkdownEnv).parley;
}
